import type { ResourceView } from '../../../projections/resources.projection.js';
import type { ResourceTarget } from '../../domain/session/resource-target.js';
import type { Directory } from '../../shared/directory.js';
import { InvalidTarget } from '../oauth-errors.js';

/**
 * RFC 8707 §2: a `resource` value is an absolute URI without a fragment; anything else, or one
 * that names no resource registered for the tenant, is `invalid_target`.
 */
export async function resourceNamed(directory: Directory, tenantId: string, value: string): Promise<ResourceView> {
  if (!isAbsoluteWithoutFragment(value)) throw new InvalidTarget('resource must be an absolute URI without a fragment');
  const resource = await directory.resourceByIdentifier(tenantId, value);
  if (!resource) throw new InvalidTarget('resource names no resource of this tenant');
  return resource;
}

/** The token request's `resource` (one per token request), resolved; undefined when absent. */
export async function tokenTarget(directory: Directory, tenantId: string, value: string | undefined): Promise<ResourceTarget | undefined> {
  if (value === undefined) return undefined;
  const { identifier, scopes } = await resourceNamed(directory, tenantId, value);
  return { identifier, scopes };
}

function isAbsoluteWithoutFragment(value: string): boolean {
  if (value.includes('#') || /\s/.test(value)) return false;
  try {
    // A scheme makes a URI absolute (RFC 3986 §4.3); URL refuses a relative reference.
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}
