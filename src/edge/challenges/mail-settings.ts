/** How e-mail one-time codes leave the server (every variable is in the README's configuration table). */
export interface MailSettings {
  /** `smtp://` or `smtps://` URL of the relay; unset, codes go to the server log in development and cannot be enabled in production. */
  smtpUrl?: string;
  /** The From address of the mails. */
  from: string;
  /** NODE_ENV is not `production`: codes may be written to the log when there is no SMTP_URL. */
  development: boolean;
  /** Seconds an e-mail code counts. */
  codeTtl: number;
}

export function mailSettings(env: NodeJS.ProcessEnv = process.env): MailSettings {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    const url = URL.canParse(smtpUrl) ? new URL(smtpUrl) : undefined;
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')) throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const ttl = env.EMAIL_CODE_TTL ?? '';
  if (ttl !== '' && (!/^\d+$/.test(ttl) || Number(ttl) < 30 || Number(ttl) > 3600)) throw new Error(`EMAIL_CODE_TTL must be a whole number of seconds from 30 to 3600, got "${ttl}"`);
  return { smtpUrl, from: env.MAIL_FROM || 'no-reply@localhost', development: env.NODE_ENV !== 'production', codeTtl: ttl === '' ? 300 : Number(ttl) };
}

/** Whether e-mail codes can reach users: by SMTP, or (development only) through the log. */
export const emailCodesAvailable = (m: MailSettings) => m.smtpUrl !== undefined || m.development;
