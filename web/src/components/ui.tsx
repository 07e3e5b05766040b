/** Small building blocks: labelled fields with their errors, the problem banner, state badges, confirm buttons. */
import { type ReactNode, useId, useState } from 'react';
import { ApiError } from '../lib/api';

/** Field errors of `error` for `path` (also matching `path.child` when `prefix`). */
export function errorsFor(error: unknown, path: string, prefix = false): string[] {
  return error instanceof ApiError ? error.forField(path, prefix) : [];
}

interface FieldProps {
  label: string;
  /** Messages shown under the control; the control is marked invalid when there are any. */
  errors?: string[];
  hint?: ReactNode;
  children: (ids: { id: string; describedBy?: string; invalid: boolean }) => ReactNode;
  className?: string;
}

/** A label, a control and its messages, tied together for screen readers. */
export function Field({ label, errors = [], hint, children, className }: FieldProps) {
  const id = useId();
  const msgId = `${id}-msg`;
  const hintId = `${id}-hint`;
  const describedBy = [errors.length ? msgId : '', hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${errors.length ? ' invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy, invalid: errors.length > 0 })}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
      {errors.length > 0 && (
        <div id={msgId} className="field-error">
          {errors.join('; ')}
        </div>
      )}
    </div>
  );
}

/** The service's refusal: its detail, and the field errors not shown next to a field. */
export function Problem({ error, shown = [] }: { error: unknown; shown?: string[] }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : new ApiError(0, (error as Error).message ?? String(error));
  const rest = e.errors.filter((f) => !shown.some((p) => f.path === p || f.path.startsWith(`${p}.`)));
  return (
    <div className="problem" role="alert">
      <strong>{e.detail}</strong>
      {rest.length > 0 && (
        <ul>
          {rest.map((f) => (
            <li key={`${f.path}:${f.message}`}>
              {f.path ? <code>{f.path}</code> : null} {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A coloured state label; the text carries the meaning, the colour repeats it. */
export function Badge({ tone, children, title }: { tone: string; children: ReactNode; title?: string }) {
  return (
    <span className={`badge ${tone}`} title={title}>
      {children}
    </span>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" aria-live="polite">
      {what}…
    </p>
  );
}

/** A button that asks "Confirm?" inline before acting (no blocking browser dialogs). */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  disabled,
  className = 'danger',
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={className} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <span>{question}</span>
      <button
        type="button"
        className={className}
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children && <div className="actions">{children}</div>}
    </div>
  );
}

/** A short-lived success line announced to screen readers. */
export function Notice({ text }: { text: string | null }) {
  return (
    <p className="notice" role="status" aria-live="polite">
      {text ?? ''}
    </p>
  );
}
