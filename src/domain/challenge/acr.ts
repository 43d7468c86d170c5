/**
 * The authentication context classes of every tenant (OpenID Connect Core §2 `acr`): a password
 * alone, or a password and a second factor. Announced as `acr_values_supported`.
 */
export const ACR_PWD = 'urn:authserver:acr:pwd';
export const ACR_MFA = 'urn:authserver:acr:mfa';
export const ACR_VALUES = [ACR_PWD, ACR_MFA] as const;

/** RFC 8176 §2: what a sign-in with a password alone proved. */
export const AMR_PWD = ['pwd'];

/** The class an `amr` stands for: multiple factors when it says so. */
export const acrOf = (amr: readonly string[] | undefined): string => (amr?.includes('mfa') ? ACR_MFA : ACR_PWD);

/**
 * Whether a request's `acr_values` (in order of preference, OpenID Connect Core §3.1.2.1) ask
 * for a second factor: the first value this server knows decides; unknown values are ignored.
 */
export function mfaRequested(acrValues: readonly string[] | undefined): boolean {
  const first = acrValues?.find((v) => (ACR_VALUES as readonly string[]).includes(v));
  return first === ACR_MFA;
}
