/**
 * A small SMTP client over node's net/tls (RFC 5321): EHLO, STARTTLS when offered and asked for, AUTH PLAIN or
 * LOGIN, one message (multipart/alternative: text and HTML, base64 bodies). Enough for a relay or a mail service.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

export interface SmtpServer {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465). */
  secure: boolean;
  /** Upgrade with STARTTLS (refused when the server does not offer it). */
  startTls: boolean;
  username?: string;
  password?: string;
  from: string;
  timeoutMs?: number;
  /** Servers with a certificate the system does not trust (tests, internal relays): false accepts it. */
  rejectUnauthorized?: boolean;
  /** The address to connect to (already resolved and checked); `host` still names the server for TLS. */
  connectAddress?: string;
  /** Ends the whole exchange (a server that trickles bytes keeps an idle timeout from firing). */
  signal?: AbortSignal;
}

/** The longest reply read: a server that never ends its line cannot fill the memory. */
const MAX_REPLY_BYTES = 64 * 1024;

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export class SmtpError extends Error {}

type Sock = net.Socket | tls.TLSSocket;

/** Reads SMTP replies (multi-line "250-..." ending with "250 ...") from a socket. */
class Replies {
  private buffer = '';
  private lines: string[] = [];
  private waiting: ((reply: { code: number; text: string }) => void) | null = null;
  private failed: Error | null = null;
  private failWaiting: ((e: Error) => void) | null = null;

  constructor(private sock: Sock) {
    this.attach(sock);
  }

  attach(sock: Sock): void {
    this.sock = sock;
    sock.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      if (this.buffer.length + this.lines.join('').length > MAX_REPLY_BYTES) {
        sock.destroy(new SmtpError(`the SMTP server sent a reply longer than ${MAX_REPLY_BYTES} bytes`));
        return;
      }
      let i = this.buffer.indexOf('\r\n');
      while (i >= 0) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 2);
        this.lines.push(line);
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) this.flush();
        i = this.buffer.indexOf('\r\n');
      }
    });
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new SmtpError('the SMTP server closed the connection')));
  }

  private flush(): void {
    const lines = this.lines;
    this.lines = [];
    const code = Number(lines[lines.length - 1].slice(0, 3));
    const text = lines.map((l) => l.slice(4)).join('\n');
    const w = this.waiting;
    this.waiting = null;
    this.failWaiting = null;
    w?.({ code, text });
  }

  private fail(e: Error): void {
    this.failed ??= e;
    const f = this.failWaiting;
    this.waiting = null;
    this.failWaiting = null;
    f?.(e);
  }

  next(): Promise<{ code: number; text: string }> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }
}

function encodeHeader(v: string): string {
  const clean = v.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(clean)
    ? clean
    : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

function base64Lines(s: string): string {
  return (
    Buffer.from(s, 'utf8')
      .toString('base64')
      .match(/.{1,76}/g)
      ?.join('\r\n') ?? ''
  );
}

/** The message as sent after DATA (CRLF line ends, without the final dot). */
export function renderMessage(from: string, m: MailMessage, now = new Date()): string {
  const boundary = `=_alert_${randomBytes(12).toString('hex')}`;
  const domain = from.split('@')[1]?.replace(/[^A-Za-z0-9.-]/g, '') || 'localhost';
  return [
    `From: ${from}`,
    `To: ${m.to.join(', ')}`,
    `Subject: ${encodeHeader(m.subject)}`,
    `Date: ${now.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomBytes(16).toString('hex')}@${domain}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(m.text),
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(m.html),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** Connects within the time limit (a host that never answers the SYN would otherwise hold for minutes). */
function connect(s: SmtpServer, timeoutMs: number): Promise<Sock> {
  return new Promise((resolve, reject) => {
    const host = s.connectAddress ?? s.host;
    const sock = s.secure
      ? tls.connect({
          host,
          port: s.port,
          servername: net.isIP(s.host) ? undefined : s.host,
          rejectUnauthorized: s.rejectUnauthorized ?? true,
        })
      : net.connect({ host, port: s.port });
    const give = (e: Error) => {
      clearTimeout(timer);
      s.signal?.removeEventListener('abort', stop);
      sock.destroy();
      reject(e);
    };
    const stop = () => give(new SmtpError('the SMTP exchange was stopped: its time ran out'));
    const timer = setTimeout(
      () => give(new SmtpError(`no connection to the SMTP server within ${timeoutMs} ms`)),
      timeoutMs,
    );
    s.signal?.addEventListener('abort', stop, { once: true });
    sock.once(s.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      s.signal?.removeEventListener('abort', stop);
      resolve(sock);
    });
    sock.once('error', give);
  });
}

const addressOnly = (a: string) => /<([^>]+)>/.exec(a)?.[1] ?? a.trim();

/** Sends one message; throws SmtpError naming the step that failed (never the password). */
export async function sendMail(s: SmtpServer, m: MailMessage): Promise<void> {
  const timeoutMs = s.timeoutMs ?? 20_000;
  s.signal?.throwIfAborted();
  let sock = await connect(s, timeoutMs);
  sock.setTimeout(timeoutMs, () =>
    sock.destroy(new SmtpError(`no answer from the SMTP server within ${timeoutMs} ms`)),
  );
  const stop = () => sock.destroy(new SmtpError('the SMTP exchange was stopped: its time ran out'));
  s.signal?.addEventListener('abort', stop, { once: true });
  const replies = new Replies(sock);
  const expect = async (step: string, ok: number[]) => {
    const r = await replies.next();
    if (!ok.includes(r.code)) throw new SmtpError(`SMTP ${step} refused: ${r.code} ${r.text.slice(0, 200)}`);
    return r;
  };
  const send = (line: string) => sock.write(`${line}\r\n`);
  try {
    await expect('greeting', [220]);
    send('EHLO anomaly-monitor');
    let ehlo = await expect('EHLO', [250]);
    if (s.startTls && !s.secure) {
      if (!/^STARTTLS\b/im.test(ehlo.text)) throw new SmtpError('the SMTP server does not offer STARTTLS');
      send('STARTTLS');
      await expect('STARTTLS', [220]);
      sock.removeAllListeners('data');
      sock.removeAllListeners('close');
      sock.removeAllListeners('error');
      const plain = sock;
      sock = await new Promise<Sock>((resolve, reject) => {
        const t = tls.connect({
          socket: plain as net.Socket,
          servername: net.isIP(s.host) ? undefined : s.host,
          rejectUnauthorized: s.rejectUnauthorized ?? true,
        });
        t.once('secureConnect', () => resolve(t));
        t.once('error', reject);
      });
      sock.setTimeout(timeoutMs, () => sock.destroy(new SmtpError('no answer from the SMTP server')));
      replies.attach(sock);
      send('EHLO anomaly-monitor');
      ehlo = await expect('EHLO', [250]);
    }
    if (s.username) {
      const methods = /^AUTH[ =](.*)$/im.exec(ehlo.text)?.[1]?.toUpperCase() ?? '';
      if (methods.includes('PLAIN') || !methods.includes('LOGIN')) {
        send(`AUTH PLAIN ${Buffer.from(`\0${s.username}\0${s.password ?? ''}`).toString('base64')}`);
        await expect('AUTH', [235]);
      } else {
        send('AUTH LOGIN');
        await expect('AUTH', [334]);
        send(Buffer.from(s.username).toString('base64'));
        await expect('AUTH', [334]);
        send(Buffer.from(s.password ?? '').toString('base64'));
        await expect('AUTH', [235]);
      }
    }
    send(`MAIL FROM:<${addressOnly(s.from)}>`);
    await expect('MAIL FROM', [250]);
    for (const to of m.to) {
      send(`RCPT TO:<${addressOnly(to)}>`);
      await expect(`RCPT TO ${to}`, [250, 251]);
    }
    send('DATA');
    await expect('DATA', [354]);
    // Dot-stuffing: a line starting with '.' gets another one.
    sock.write(`${renderMessage(s.from, m).replace(/\r\n\./g, '\r\n..')}\r\n.\r\n`);
    await expect('message', [250]);
    send('QUIT');
    await replies.next().catch(() => undefined);
  } finally {
    s.signal?.removeEventListener('abort', stop);
    sock.destroy();
  }
}
