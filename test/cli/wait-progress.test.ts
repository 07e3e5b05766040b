/** What `service-cli … --wait` prints for each change of a job: its progress while it runs, its outcome at the end. */
import { describe as group, expect, it } from 'vitest';
import { describe, outcome } from '../../cli/wait';

group('--wait progress lines', () => {
  it('shows shards done of the total while a detection runs', () => {
    expect(describe({ status: 'running', progress: { done: 3, total: 8, unit: 'shards' } })).toBe(
      'running, 3 of 8 shards done',
    );
  });
  it('shows what a finished job did, and only the state while nothing is known', () => {
    expect(outcome({ status: 'finished', progress: null, message: '27,452 rows, 84 series' })).toBe(
      '27,452 rows, 84 series',
    );
    expect(describe({ status: 'finished', progress: { done: 8, total: 8, unit: 'shards' } })).toBe(
      'finished',
    );
    expect(describe({ status: 'pending', progress: null })).toBe('pending');
  });
});
