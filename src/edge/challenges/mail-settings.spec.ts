import { emailCodesAvailable, mailSettings } from './mail-settings.js';

describe('mail settings', () => {
  it('send by SMTP when SMTP_URL is set; log the codes only in development; none in production', () => {
    expect(emailCodesAvailable(mailSettings({ SMTP_URL: 'smtp://127.0.0.1:2525', NODE_ENV: 'production' }))).toBe(true);
    expect(emailCodesAvailable(mailSettings({ NODE_ENV: 'development' }))).toBe(true);
    expect(emailCodesAvailable(mailSettings({}))).toBe(true);
    expect(emailCodesAvailable(mailSettings({ NODE_ENV: 'production' }))).toBe(false);
  });

  it('defaults, and clear errors for a bad SMTP_URL or EMAIL_CODE_TTL', () => {
    expect(mailSettings({})).toEqual({ smtpUrl: undefined, from: 'no-reply@localhost', development: true, codeTtl: 300 });
    expect(() => mailSettings({ SMTP_URL: 'http://relay' })).toThrow('SMTP_URL must be an smtp:// or smtps:// URL');
    expect(() => mailSettings({ EMAIL_CODE_TTL: '5' })).toThrow('EMAIL_CODE_TTL must be a whole number of seconds from 30 to 3600');
    expect(mailSettings({ EMAIL_CODE_TTL: '600', MAIL_FROM: 'id@acme.test' })).toMatchObject({ codeTtl: 600, from: 'id@acme.test' });
  });
});
