import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger, powertoolsLogger, setLogLevel } from '../../../lib/shared/logger';

// A failure's log line must say why: drizzle's "Failed query: …" wraps the database error as its cause.
describe('the logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    setLogLevel('silent');
  });

  it('writes an error with its whole cause chain', () => {
    setLogLevel('info');
    const lines: string[] = [];
    // Powertools writes through its own Console: capture what it prints.
    const out = (powertoolsLogger as unknown as { console: Record<string, (s: unknown) => void> }).console;
    for (const m of ['log', 'info', 'warn', 'error', 'debug'])
      vi.spyOn(out, m).mockImplementation((s: unknown) => {
        lines.push(String(s));
      });
    const root = Object.assign(new Error('could not resize shared memory segment'), { code: '53100' });
    const pg = new Error('relation "users" is being rebuilt', { cause: root });
    const failed = new Error('Failed query: select "id" from "users"', { cause: pg });
    logger.child({ requestId: 'r1' }).error('request failed', { error: failed });
    const line = lines.map((l) => l.trim()).find((l) => l.includes('request failed'));
    expect(line).toBeDefined();
    const error = JSON.parse(line!).error;
    expect(error.message).toBe('Failed query: select "id" from "users"');
    expect(error.cause.message).toBe('relation "users" is being rebuilt');
    expect(error.cause.cause).toMatchObject({
      message: 'could not resize shared memory segment',
      code: '53100',
    });
  });
});
