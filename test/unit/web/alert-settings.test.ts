/**
 * The alert settings form sends back what the API accepts: a stored SMTP server, as GET /settings/alerts
 * answers it (with `hasPassword` and the password's mask), saved unchanged passes the API's own validation
 * of PUT /settings/alerts, and a new server's form does too.
 */
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../lib/shared/errors';
import { validate } from '../../../lib/shared/validation';
import { smtpBody, smtpForm } from '../../../web/src/lib/alert-settings';
import type { AlertSettingsView } from '../../../web/src/lib/api-types.gen';

const stored: AlertSettingsView = {
  updatedAt: '2026-11-28T10:00:00.000Z',
  publicUrl: 'https://monitor.example.com',
  allowPrivateNetwork: false,
  smtp: {
    host: 'smtp.example.com',
    port: 465,
    secure: true,
    from: 'alerts@example.com',
    hasPassword: true,
    password: '*****',
  },
};

const put = (smtp: unknown) =>
  validate('alert-settings', { publicUrl: stored.publicUrl, allowPrivateNetwork: false, smtp });

describe('the SMTP part of the alert settings form', () => {
  it('saves a stored server unchanged as a body the API accepts, the mask keeping the stored password', () => {
    const body = smtpBody(smtpForm(stored.smtp));
    expect(body).not.toHaveProperty('hasPassword');
    expect(body).toMatchObject({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      startTls: false,
      password: '*****',
    });
    expect(() => put(body)).not.toThrow();
    // What the form sent before: the view's fields as they came, which the API refuses.
    const refused = (() => {
      try {
        put(stored.smtp);
      } catch (e) {
        return (e as AppError).errors;
      }
    })();
    expect(refused).toContainEqual({ path: 'smtp.hasPassword', message: 'is not a known field' });
  });

  it('fills a new server with the defaults and sends no password unless one is typed', () => {
    const form = smtpForm(null);
    expect(form).toMatchObject({ port: 587, secure: false, startTls: true, password: '' });
    const body = smtpBody({ ...form, host: 'mail.example.com', from: 'alerts@example.com' });
    expect(body).not.toHaveProperty('password');
    expect(() => put(body)).not.toThrow();
    expect(smtpBody({ ...form, password: 'secret' }).password).toBe('secret');
  });
});
