import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, onSessionLost } from './api/client.js';
import { NotFound } from './components/not-found.js';
import { Page } from './components/page.js';
import { visibleNav } from './nav.js';
import { ApprovalDetail } from './pages/approvals/approval-detail.js';
import { ApprovalsInbox } from './pages/approvals/inbox.js';
import { AuditEntry } from './pages/audit/audit-entry.js';
import { ChainPage } from './pages/audit/chain.js';
import { AuditTimeline } from './pages/audit/timeline.js';
import { IntentDetail } from './pages/intents/intent-detail.js';
import { IntentList } from './pages/intents/intent-list.js';
import { IntentPolicy } from './pages/policies/intent-policy.js';
import { PhysicalPolicy } from './pages/policies/physical-policy.js';
import { Playground } from './pages/policies/playground.js';
import { Simulation } from './pages/policies/simulation.js';
import { SecondFactor } from './pages/second-factor.js';
import { Settings } from './pages/settings/settings.js';
import { SignIn } from './pages/sign-in.js';
import { type Permission, permissionsOf } from './session/roles.js';
import {
  clearSession,
  endedBecause,
  loadSession,
  type Session,
  saveSession,
  setNotice,
  takeNotice,
} from './session/session.js';
import { SessionContext, type SessionState, useSession } from './session/session-context.js';

/** The server ends a session after 30 idle minutes; polling pages must not keep it alive for 12 h. */
const IDLE_LIMIT_MS = 30 * 60 * 1000;

function Home() {
  const { can } = useSession();
  const { route } = useLocation();
  const first = visibleNav(can)[0];
  useEffect(() => {
    if (first) route(first.href, true);
  }, [first?.href]);
  return first ? null : (
    <Page title="Nothing to show">
      <p>Your role has no console page. Ask an owner for another role.</p>
    </Page>
  );
}

function Shell({ state }: { state: SessionState }) {
  const { url } = useLocation();
  const nav = visibleNav(state.can);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Authority Runtime</span>
        <nav aria-label="Main">
          <ul>
            {nav.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={url.startsWith(item.href) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {state.session.user.email} · {state.session.user.role} · {state.session.tenantId}
        </span>
        <button type="button" onClick={() => void state.signOut()}>
          Sign out
        </button>
      </header>
      <Router>
        <Route path="/console/" component={Home} />
        <Route path="/console/approvals" component={ApprovalsInbox} />
        <Route path="/console/approvals/:id" component={ApprovalDetail} />
        <Route path="/console/intents" component={IntentList} />
        <Route path="/console/intents/:id" component={IntentDetail} />
        <Route path="/console/audit" component={AuditTimeline} />
        <Route path="/console/audit/chain" component={ChainPage} />
        <Route path="/console/audit/entries/:index" component={AuditEntry} />
        <Route path="/console/policies" component={IntentPolicy} />
        <Route path="/console/policies/playground" component={Playground} />
        <Route path="/console/policies/simulation" component={Simulation} />
        <Route path="/console/policies/physical" component={PhysicalPolicy} />
        <Route path="/console/settings" component={Settings} />
        <Route path="/console/settings/:section" component={Settings} />
        <Route default component={NotFound} />
      </Router>
    </>
  );
}

/** The console: sign-in, the second factor, then the pages the role may see. */
export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const [notice, setNoticeText] = useState<string | null>(() => takeNotice());

  const end = useCallback((message: string | null) => {
    clearSession();
    setSession(null);
    setNoticeText(message);
    if (message) setNotice(message);
  }, []);

  useEffect(() => onSessionLost((error) => end(endedBecause(error.reason))), [end]);

  // Signs out after 30 minutes without a key press or a click, whatever the page keeps polling.
  useEffect(() => {
    if (session === null) return undefined;
    let last = Date.now();
    const touch = () => {
      last = Date.now();
    };
    window.addEventListener('keydown', touch);
    window.addEventListener('pointerdown', touch);
    const timer = setInterval(() => {
      const expired = Date.now() >= Date.parse(session.expiresAt);
      if (Date.now() - last < IDLE_LIMIT_MS && !expired) return;
      void api('POST', '/portal/logout').catch(() => {});
      end(endedBecause(expired ? 'absolute_timeout' : 'local_idle'));
    }, 15_000);
    return () => {
      clearInterval(timer);
      window.removeEventListener('keydown', touch);
      window.removeEventListener('pointerdown', touch);
    };
  }, [session?.sessionId]);

  const state = useMemo<SessionState | null>(() => {
    if (session === null) return null;
    const permissions = permissionsOf(session.user.role);
    return {
      session,
      can: (permission: Permission) => permissions.has(permission),
      signOut: async () => {
        await api('POST', '/portal/logout').catch(() => {});
        end('You signed out.');
      },
    };
  }, [session, end]);

  const update = (next: Session) => {
    saveSession(next);
    setSession(next);
    setNoticeText(null);
  };

  if (session === null || state === null) return <SignIn notice={notice} onSignedIn={update} />;
  if (session.mfaRequired && !session.mfaVerified) {
    return (
      <SecondFactor
        session={session}
        onVerified={(sessionId) => update({ ...session, sessionId, mfaVerified: true, mfaEnrolled: true })}
        onCancel={() => void state.signOut()}
      />
    );
  }
  return (
    <SessionContext.Provider value={state}>
      <LocationProvider scope="/console">
        <Shell state={state} />
      </LocationProvider>
    </SessionContext.Provider>
  );
}
