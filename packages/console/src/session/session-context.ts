import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Permission } from './roles.js';
import type { Session } from './session.js';

export interface SessionState {
  session: Session;
  /** Whether the signed-in role holds the permission (the server still decides). */
  can(permission: Permission): boolean;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

/** The signed-in session; pages render only inside the signed-in shell. */
export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (state === null) throw new Error('useSession outside the signed-in shell');
  return state;
}
