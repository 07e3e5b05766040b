/**
 * The editor's check as you type: a pause in typing sends the text to POST /dataviews/validate (the
 * checks of a save, without saving), and the field errors it answers are placed in the current text.
 * A save's own refusal goes through `report`, so both show the same way.
 */
import { useEffect, useMemo, useState } from 'react';
import { ApiError, api, type FieldError } from './api';
import { type Marker, YamlText } from './yaml-doc';

const PAUSE_MS = 500;

export interface DefinitionCheck {
  /** Errors of the newest check, placed in `text`. */
  markers: Marker[];
  /** 'checking' while a check of the current text is on its way; 'valid' when it passed. */
  state: 'idle' | 'checking' | 'valid' | 'invalid';
  /** Shows a refusal (of a save, say) the same way as a check's. */
  report: (e: unknown) => void;
}

export function useDefinitionCheck(text: string | null, viewId: number | null): DefinitionCheck {
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [checked, setChecked] = useState<string | null>(null);
  useEffect(() => {
    if (text === null) return;
    const abort = new AbortController();
    const timer = window.setTimeout(async () => {
      try {
        await api('POST', `/dataviews/validate${viewId ? `?id=${viewId}` : ''}`, text, {
          yaml: true,
          signal: abort.signal,
        });
        setErrors([]);
        setChecked(text);
      } catch (e) {
        if (abort.signal.aborted) return;
        // A refusal without field errors (the service unreachable) leaves the last errors in place.
        if (e instanceof ApiError && e.errors.length > 0) {
          setErrors(e.errors);
          setChecked(text);
        }
      }
    }, PAUSE_MS);
    return () => {
      abort.abort();
      window.clearTimeout(timer);
    };
  }, [text, viewId]);
  // Paths are placed in the current text, so errors stay at their keys while the text moves around them.
  const markers = useMemo(() => (text === null ? [] : new YamlText(text).markers(errors)), [text, errors]);
  const report = (e: unknown) => {
    if (e instanceof ApiError && e.errors.length > 0) {
      setErrors(e.errors);
      setChecked(text);
    }
  };
  const state =
    checked === null ? 'idle' : checked !== text ? 'checking' : errors.length ? 'invalid' : 'valid';
  return { markers, state, report };
}
