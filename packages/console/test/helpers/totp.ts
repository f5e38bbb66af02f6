import * as OTPAuth from 'otpauth';

/**
 * TOTP codes as an authenticator app computes them (the `otpauth` library, independent of the
 * server's implementation). A code is accepted once per step and the server accepts the steps on
 * either side of its own, so each sign-in of the same user takes a later step of the three, waiting
 * when it must. The step before is taken only while the current one has 10 s left: the server must
 * still count it as the step before when the code reaches it.
 */
export class Authenticator {
  private lastStep = -1;
  private readonly totp: OTPAuth.TOTP;

  constructor(secretBase32: string) {
    this.totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secretBase32), digits: 6, period: 30 });
  }

  async nextCode(): Promise<string> {
    for (;;) {
      const now = Date.now();
      const current = Math.floor(now / 30_000);
      const earliest = now % 30_000 <= 20_000 ? current - 1 : current;
      const step = Math.max(earliest, this.lastStep + 1);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.totp.generate({ timestamp: step * 30_000 });
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
