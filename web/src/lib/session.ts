/** The signed-in session: the Bearer token in sessionStorage (gone with the tab) and who it belongs to. */
import { createContext, useContext, useSyncExternalStore } from 'react';
import type * as Api from './api-types.gen';

const KEY = 'anomaly-monitor.token';
const listeners = new Set<() => void>();

/** Who the token belongs to: GET /auth/me (schemas/responses/identity.schema.json). */
export type Me = Api.CallerView;

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  sessionStorage.setItem(KEY, token);
  for (const l of listeners) l();
}

/** Signs out: forgets the token; the app falls back to the sign-in page. */
export function clearToken(): void {
  sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
}

export function useToken(): string | null {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, getToken);
}

export const MeContext = createContext<Me | null>(null);

/** The signed-in user; only used below the app shell, where it is always set. */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside a signed-in session');
  return me;
}

export const isAdmin = (me: Me) => me.role === 'admin';
