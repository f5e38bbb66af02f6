import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { Form, TextField } from '../components/fields.js';
import { Problem } from '../components/problem.js';
import { useAction } from '../components/use-api.js';
import type { Session } from '../session/session.js';

interface Enrollment {
  otpauthUri: string;
  secret: string;
}

/** The otpauth URI as a QR code image (a data: URL, which the CSP allows for images). */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    // Loaded only here: most sign-ins never enroll, so the first page stays small.
    import('qrcode')
      .then(({ toDataURL }) => toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 220 }))
      .then((url) => {
        if (live) setSrc(url);
      });
    return () => {
      live = false;
    };
  }, [uri]);
  return src ? (
    <img class="qr" src={src} width={220} height={220} alt="QR code of the authenticator enrollment link" />
  ) : null;
}

/**
 * The second factor (contract §2): a TOTP code for a user who has one, or enrollment (the otpauth
 * URI as a QR code, and the secret for manual entry) for one who has none.
 */
export function SecondFactor({
  session,
  onVerified,
  onCancel,
}: {
  session: Session;
  onVerified: (sessionId: string) => void;
  onCancel: () => void;
}) {
  const [code, setCode] = useState('');
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null);
  const enroll = useAction(async () => setEnrollment(await api<Enrollment>('POST', '/portal/mfa/enroll')));
  const verify = useAction(async () => {
    // A verified session gets a new id (the old one ends), so a planted id never gains the factor.
    const answer = await api<{ sessionId: string }>('POST', '/portal/mfa', { body: { code: code.trim() } });
    onVerified(answer.sessionId);
  });
  const needsEnrollment = !session.mfaEnrolled;

  useEffect(() => {
    if (needsEnrollment && enrollment === null) void enroll.run();
  }, [needsEnrollment]);

  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>{needsEnrollment ? 'Set up your second factor' : 'Enter your authenticator code'}</h1>
      <p>
        Signed in as <strong>{session.user.email}</strong> ({session.user.role}) in tenant{' '}
        <strong>{session.tenantId}</strong>.
      </p>
      {needsEnrollment ? (
        <div class="enrollment">
          <p>
            Your role needs a second factor. Scan this code with an authenticator app (TOTP, 6 digits, 30 s),
            then enter the code it shows.
          </p>
          {enrollment ? (
            <>
              <QrCode uri={enrollment.otpauthUri} />
              <p>
                Or enter this secret by hand: <code class="secret">{enrollment.secret}</code>
              </p>
            </>
          ) : null}
          <Problem error={enroll.error} title="Enrollment failed" />
        </div>
      ) : null}
      <Form label="Verify code" onSubmit={() => void verify.run()}>
        <TextField
          label="Code"
          name="code"
          value={code}
          onValue={setCode}
          required
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          hint="Six digits from your authenticator app"
          autoFocus
        />
        <button type="submit" class="primary" disabled={verify.busy}>
          Verify
        </button>{' '}
        <button type="button" onClick={onCancel}>
          Sign out
        </button>
      </Form>
      <Problem error={verify.error} title="The code was not accepted" />
    </main>
  );
}
