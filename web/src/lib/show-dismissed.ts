/**
 * Whether the reader's lists show rows marked "expected" or "not an anomaly" (docs/feedback.md): hidden by
 * default on Home, whatever each filter's hideDismissed; the switch is remembered in this browser.
 */
import { useState } from 'react';

const KEY = 'showDismissed';

export function useShowDismissed(): [boolean, (v: boolean) => void] {
  const [show, setShow] = useState(() => {
    try {
      return window.localStorage.getItem(KEY) === 'true';
    } catch {
      return false;
    }
  });
  const set = (v: boolean) => {
    setShow(v);
    try {
      window.localStorage.setItem(KEY, String(v));
    } catch {
      // Private mode: the switch lasts for the page.
    }
  };
  return [show, set];
}
