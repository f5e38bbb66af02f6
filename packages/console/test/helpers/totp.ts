import * as OTPAuth from 'otpauth';

/**
 * TOTP codes as an authenticator app computes them (the `otpauth` library, independent of the
 * server's implementation). A code is accepted once per step and the server also accepts the next
 * step's code, so each sign-in of the same user takes a later step, waiting when it must.
 */
export class Authenticator {
  private lastStep = -1;
  private readonly totp: OTPAuth.TOTP;

  constructor(secretBase32: string) {
    this.totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secretBase32), digits: 6, period: 30 });
  }

  async nextCode(): Promise<string> {
    for (;;) {
      const current = Math.floor(Date.now() / 30_000);
      const step = Math.max(current, this.lastStep + 1);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.totp.generate({ timestamp: step * 30_000 });
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
