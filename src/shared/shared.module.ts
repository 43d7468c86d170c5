import { Global, Module } from '@nestjs/common';
import { Directory } from './directory.js';
import { PageContexts } from '../edge/pages/page-contexts.js';
import { TenantForms } from './tenant-forms.js';

@Global()
@Module({ providers: [Directory, PageContexts, TenantForms], exports: [Directory, PageContexts, TenantForms] })
export class SharedModule {}
