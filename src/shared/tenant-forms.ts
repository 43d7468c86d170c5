import { Inject, Injectable } from '@nestjs/common';
import { formKey, type FormView } from '../../projections/forms.projection.js';
import { defaultForm } from '../domain/form/form-rules.js';
import type { FormDefinition, FormName } from '../domain/form/form.events.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';

/** The form a tenant's page and endpoint apply: its own, or the default. */
@Injectable()
export class TenantForms {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async form(tenantId: string, form: FormName): Promise<FormDefinition> {
    const own = await this.reads.get<FormView>('forms', formKey(tenantId, form));
    return own ? { fields: own.fields } : defaultForm(form);
  }
}
