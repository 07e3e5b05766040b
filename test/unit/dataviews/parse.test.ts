import { describe, expect, it } from 'vitest';
import { parseDefinitionBody } from '../../../lib/dataviews/definition/parse';
import { ValidationError } from '../../../lib/shared/errors';

function rejection(body: unknown): ValidationError {
  try {
    parseDefinitionBody(body);
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('the body was accepted');
}

describe('parseDefinitionBody', () => {
  it('returns a JSON object body as it is', () => {
    const body = { schemaVersion: 3 };
    expect(parseDefinitionBody(body)).toBe(body);
  });

  it('reads YAML text, and JSON text as YAML', () => {
    expect(parseDefinitionBody('schemaVersion: 3\nmetadata:\n  name: a\n')).toEqual({
      schemaVersion: 3,
      metadata: { name: 'a' },
    });
    expect(parseDefinitionBody('{"schemaVersion": 3}')).toEqual({ schemaVersion: 3 });
  });

  it('reads YAML sent as bytes', () => {
    expect(parseDefinitionBody(new TextEncoder().encode('schemaVersion: 3\n'))).toEqual({ schemaVersion: 3 });
  });

  it('keeps unquoted dates as text (YAML 1.2)', () => {
    expect(parseDefinitionBody('analysis:\n  specialDates: [2024-12-25]\n')).toEqual({
      analysis: { specialDates: ['2024-12-25'] },
    });
  });

  it('keeps unquoted MM.dd period days as written, trailing zeros included', () => {
    const doc = parseDefinitionBody('analysis:\n  specialPeriods:\n    - start: 12.10\n      end: 01.02\n');
    expect(doc).toEqual({ analysis: { specialPeriods: [{ start: '12.10', end: '01.02' }] } });
  });

  it('names line and column of a YAML syntax error', () => {
    const error = rejection('schemaVersion: 3\nmetadata:\n  name: [a, b\n');
    expect(error.code).toBe('VALIDATION');
    expect(error.errors?.[0].path).toBe('');
    expect(error.errors?.[0].message).toMatch(/^YAML syntax error at line \d+, column \d+: /);
    expect(error.message).toMatch(/line \d+, column \d+/);
  });

  it('points at the second of two equal keys', () => {
    const error = rejection('schemaVersion: 3\nmetadata: {}\nmetadata: {}\n');
    expect(error.errors?.[0].message).toContain('line 3, column 1');
    expect(error.errors?.[0].message).toContain('unique');
  });

  it('hints at quoting when an unquoted cron starts with *', () => {
    const error = rejection('source:\n  cron: * * * * *\n');
    expect(error.errors?.[0].message).toContain('line 2, column 9');
    expect(error.errors?.[0].message).toContain('quote');
  });

  it('refuses several YAML documents in one body', () => {
    expect(rejection('a: 1\n---\nb: 2\n').errors?.[0].message).toContain('line 2');
  });

  it('refuses YAML that is not a mapping', () => {
    expect(rejection('- a\n- b\n').errors?.[0].message).toContain('mapping');
    expect(rejection('').errors?.[0].message).toContain('mapping');
  });

  it('refuses bodies that are neither object nor text', () => {
    expect(rejection(undefined).errors?.[0].message).toContain('required');
    expect(rejection([1, 2]).errors?.[0].path).toBe('');
    expect(rejection(42).errors?.[0].path).toBe('');
  });
});
