/** Feedback on one anomaly record: shows it, lets a reader give it and its author (or an admin) change or remove it. */
import { useState } from 'react';
import { api } from '../lib/api';
import type * as Api from '../lib/api-types.gen';
import { isAdmin, useMe } from '../lib/session';
import { Badge } from './ui';

export type FeedbackStatus = Api.FeedbackRecord['status'];

/** Feedback as a record carries it (schemas/filter-answer.schema.json). */
export type RecordFeedback = NonNullable<Api.FilterAnswerAnomaly['feedback']>;

/** What the form needs of a record: its stable key and its current feedback. */
export type FeedbackTarget = Pick<Api.FilterAnswerAnomaly, 'dataViewId' | 'seriesId' | 'type' | 'startDate'> &
  Partial<Pick<Api.FilterAnswerAnomaly, 'measure' | 'feedback' | 'incidentId'>>;

export const FEEDBACK_LABELS: Record<FeedbackStatus, string> = {
  confirmed: 'Confirmed',
  expected: 'Expected',
  'not-anomaly': 'Not an anomaly',
};

export function FeedbackForm({
  record,
  onChanged,
}: {
  record: FeedbackTarget;
  onChanged?: (f: RecordFeedback | null) => void;
}) {
  const me = useMe();
  const [current, setCurrent] = useState<RecordFeedback | null>(record.feedback ?? null);
  const [editing, setEditing] = useState(false);
  const [status, setStatus] = useState<FeedbackStatus>(current?.status ?? 'confirmed');
  const [note, setNote] = useState(current?.note ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const incidentId = record.incidentId ?? null;
  const [onIncident, setOnIncident] = useState(incidentId !== null);
  const mine = current === null || current.email === me.email || isAdmin(me);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const saved =
        onIncident && incidentId !== null
          ? ownOf(
              await api<{ members: Array<RecordFeedback & KeyOf> }>('PUT', '/anomalies/feedback/incident', {
                dataViewId: record.dataViewId,
                incidentId,
                status,
                note,
              }),
              record,
            )
          : await api<RecordFeedback>('PUT', '/anomalies/feedback', {
              dataViewId: record.dataViewId,
              seriesId: record.seriesId,
              measure: record.measure ?? 'value',
              type: record.type,
              startDate: record.startDate,
              status,
              note,
            });
      setCurrent(saved);
      setEditing(false);
      onChanged?.(saved);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!current) return;
    setBusy(true);
    setError(null);
    try {
      await api(
        'DELETE',
        current.incidentId
          ? `/anomalies/feedback/incident/${record.dataViewId}/${current.incidentId}`
          : `/anomalies/feedback/${current.id}`,
      );
      setCurrent(null);
      setEditing(false);
      onChanged?.(null);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="feedback">
      <h4>Feedback</h4>
      {current ? (
        <p data-testid="feedback-current">
          <strong>{FEEDBACK_LABELS[current.status]}</strong>
          {current.note ? <> — {current.note}</> : null}{' '}
          {current.incidentId ? (
            <span className="muted">(on the whole incident #{current.incidentId}) </span>
          ) : null}
          <span className="muted">
            by {current.email}, {current.updatedAt.slice(0, 10)}
          </span>
        </p>
      ) : (
        <p className="muted">No feedback yet.</p>
      )}
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <fieldset>
            <legend>This anomaly is</legend>
            {(Object.keys(FEEDBACK_LABELS) as FeedbackStatus[]).map((s) => (
              <label key={s}>
                <input
                  type="radio"
                  name="feedback-status"
                  value={s}
                  checked={status === s}
                  onChange={() => setStatus(s)}
                />{' '}
                {FEEDBACK_LABELS[s]}
              </label>
            ))}
          </fieldset>
          {incidentId !== null && (
            <label>
              <input type="checkbox" checked={onIncident} onChange={(e) => setOnIncident(e.target.checked)} />{' '}
              Apply to the whole incident #{incidentId} (every series, measure and level of the event)
            </label>
          )}
          <label>
            Note (optional)
            <input value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
          </label>
          {error && <p className="problem">{error}</p>}
          <button type="submit" disabled={busy}>
            Save feedback
          </button>{' '}
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        mine && (
          <>
            {error && <p className="problem">{error}</p>}
            <button type="button" onClick={() => setEditing(true)}>
              {current ? 'Change feedback' : 'Give feedback'}
            </button>
            {current && (
              <>
                {' '}
                <button type="button" disabled={busy} onClick={() => void remove()}>
                  Remove feedback
                </button>
              </>
            )}
          </>
        )
      )}
    </div>
  );
}

type KeyOf = { seriesId: number; measure: string; type: string; startDate: string };

/** The member feedback of the record itself out of an incident feedback's answer (else its first). */
function ownOf(answer: { members: Array<RecordFeedback & KeyOf> }, record: FeedbackTarget): RecordFeedback {
  return (
    answer.members.find(
      (m) =>
        m.seriesId === record.seriesId &&
        m.measure === (record.measure ?? 'value') &&
        m.type === record.type &&
        m.startDate === record.startDate,
    ) ?? answer.members[0]
  );
}

/** The feedback of a record as a badge in result tables. */
export function FeedbackBadge({ feedback }: { feedback: RecordFeedback }) {
  const tone = feedback.status === 'confirmed' ? 'red' : feedback.status === 'expected' ? 'blue' : 'gray';
  return (
    <Badge
      tone={tone}
      title={`${FEEDBACK_LABELS[feedback.status]} by ${feedback.email}${feedback.note ? `: ${feedback.note}` : ''}`}
    >
      {FEEDBACK_LABELS[feedback.status]}
    </Badge>
  );
}
