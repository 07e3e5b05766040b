/**
 * The SMTP part of the alert settings form: filled from what GET /settings/alerts answers
 * (`alert-settings-view`) and sent back as the body PUT validates (`alert-settings`), which knows no
 * `hasPassword` and keeps the stored password when none (or the mask) is sent.
 */
import type * as Api from './api-types.gen';

type SmtpBody = NonNullable<Api.AlertSettings['smtp']>;

/** Every field of the form has a value; the password is empty unless typed (or the stored one's mask). */
export type SmtpForm = Required<Omit<SmtpBody, 'password'>> & { password: string };

/** The form of a view: the stored server with the service's defaults, or a new one. */
export function smtpForm(view: Api.AlertSettingsView['smtp']): SmtpForm {
  const secure = view?.secure ?? false;
  return {
    host: view?.host ?? '',
    port: view?.port ?? (secure ? 465 : 587),
    secure,
    startTls: view?.startTls ?? !secure,
    username: view?.username ?? '',
    password: view?.password ?? '',
    from: view?.from ?? '',
    allowPrivateNetwork: view?.allowPrivateNetwork ?? false,
    allowUntrustedCertificate: view?.allowUntrustedCertificate ?? false,
  };
}

/** The body's smtp: the form's fields, the password only when one is given. */
export function smtpBody(form: SmtpForm): SmtpBody {
  const { password, ...rest } = form;
  return password ? { ...rest, password } : rest;
}
