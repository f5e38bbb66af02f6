/** A report as an audit entry lists it. The reports' wire schemas are the SDK's (`@authority-runtime/sdk/wire`). */
export interface Verification {
  atMs: number;
  edgeNodeId: string;
  result: 'accepted' | 'rejected';
  reason?: string;
}
