import { Logger } from '@nestjs/common';
import nodemailer from 'nodemailer';
import type { MailSettings } from './mail-settings.js';

/** One mail to one address, in plain text. */
export interface OutboundMail {
  to: string;
  subject: string;
  text: string;
}

/** The outbound mail port: where e-mail one-time codes leave the server. */
export interface MailPort {
  send(mail: OutboundMail): Promise<void>;
}

export const MAIL_PORT = Symbol('MAIL_PORT');

/** SMTP through nodemailer, to the relay SMTP_URL names. */
class SmtpMail implements MailPort {
  private readonly transport;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(mail: OutboundMail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }
}

/** Development without SMTP_URL: the mail, code included, goes to the server log. */
class LogMail implements MailPort {
  private readonly logger = new Logger('Mail');

  async send(mail: OutboundMail): Promise<void> {
    this.logger.warn(`(development, no SMTP_URL) mail to ${mail.to}: ${mail.subject}: ${mail.text}`);
  }
}

/** Production without SMTP_URL: nothing can be sent (e-mail codes cannot be enabled there). */
class NoMail implements MailPort {
  async send(): Promise<void> {
    throw new Error('no SMTP_URL: this server cannot send mail');
  }
}

/** The port the settings call for; says at start-up where e-mail codes go when it is not SMTP. */
export function mailPort(settings: MailSettings): MailPort {
  const logger = new Logger('Mail');
  if (settings.smtpUrl) return new SmtpMail(settings.smtpUrl, settings.from);
  if (settings.development) {
    logger.warn('SMTP_URL is not set: e-mail one-time codes are written to this log (development only; NODE_ENV=production refuses to enable them)');
    return new LogMail();
  }
  logger.log('SMTP_URL is not set: e-mail one-time codes cannot be enabled');
  return new NoMail();
}
