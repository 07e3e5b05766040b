/**
 * Who may change feedback, and what a reader sees of it: shared by feedback on one record
 * (lib/feedback/service.ts) and feedback on an incident (lib/incidents/feedback.ts).
 */
import { type Caller, isAdmin } from '../identity/caller';
import type { FeedbackRow } from './repository';
import type { FeedbackRecord } from './types';

/** The record as answered: without the author's user id (the e-mail says who). */
export function toFeedbackRecord(r: FeedbackRow): FeedbackRecord {
  const { userId: _u, ...rest } = r;
  return rest;
}

/** Its author or an administrator may change or remove feedback. */
export function mayChangeFeedback(caller: Caller, row: Pick<FeedbackRow, 'userId'>): boolean {
  return isAdmin(caller) || row.userId === caller.userId;
}
