/** How long an edge's client certificate lives (`EDGE_CERTIFICATE_TTL`, seconds, listed in the README). */
export interface EdgeCertificateSettings {
  ttl: number;
}

export const EDGE_CERTIFICATE_SETTINGS = Symbol('EDGE_CERTIFICATE_SETTINGS');

/** Five minutes at least (clock skew between an edge and central); a day by default; 30 days at most, as the point is that it is short. */
export function edgeCertificateSettings(env: NodeJS.ProcessEnv = process.env): EdgeCertificateSettings {
  const raw = env.EDGE_CERTIFICATE_TTL;
  if (raw === undefined || raw === '') return { ttl: 86_400 };
  if (!/^\d+$/.test(raw) || Number(raw) < 300 || Number(raw) > 30 * 86_400) throw new Error(`EDGE_CERTIFICATE_TTL must be a whole number of seconds from 300 to 2592000, got "${raw}"`);
  return { ttl: Number(raw) };
}
