import { RegistrationNotSupported } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** OpenID Connect Core §7.2.1: `registration` is refused with its own error code where it is not supported. */
export const checkRegistration: Check = ({ params }) => {
  if (params.registration !== undefined) throw new RegistrationNotSupported('the registration parameter is not supported');
};
