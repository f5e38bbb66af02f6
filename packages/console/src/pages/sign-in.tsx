import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { Form, TextField } from '../components/fields.js';
import { Problem } from '../components/problem.js';
import { useAction } from '../components/use-api.js';
import type { PortalUser, Session } from '../session/session.js';

interface LoginAnswer {
  sessionId: string;
  mfaRequired: boolean;
  mfaEnrolled: boolean;
  expiresAt: string;
  user: PortalUser;
}

const LAST_TENANT = 'authority-console.tenant';

/** Sign-in (contract §14): tenant, email and password; the second factor follows when required. */
export function SignIn({
  notice,
  onSignedIn,
}: {
  notice: string | null;
  onSignedIn: (session: Session) => void;
}) {
  const [tenant, setTenant] = useState(() => localStorage.getItem(LAST_TENANT) ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => {
    const answer = await api<LoginAnswer>('POST', '/portal/login', {
      anonymous: true,
      body: { tenantId: tenant.trim(), email: email.trim(), password },
    });
    localStorage.setItem(LAST_TENANT, tenant.trim());
    onSignedIn({
      sessionId: answer.sessionId,
      tenantId: tenant.trim(),
      user: answer.user,
      mfaRequired: answer.mfaRequired,
      mfaEnrolled: answer.mfaEnrolled,
      mfaVerified: false,
      expiresAt: answer.expiresAt,
    });
  });
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Sign in to Authority Runtime</h1>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <Form label="Sign in" onSubmit={() => void login.run()}>
        <TextField
          label="Tenant"
          name="tenant"
          value={tenant}
          onValue={setTenant}
          required
          autoComplete="organization"
          hint="The tenant id, e.g. demo"
        />
        <TextField
          label="Email"
          name="email"
          type="email"
          value={email}
          onValue={setEmail}
          required
          autoComplete="username"
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          autoComplete="current-password"
        />
        <button type="submit" class="primary" disabled={login.busy}>
          Sign in
        </button>
      </Form>
      <Problem error={login.error} title="Sign-in failed" />
      <p class="muted">
        Console users are created by an operator with <code>authority users create</code>.
      </p>
    </main>
  );
}
