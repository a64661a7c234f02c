/** A reconcile failure with a reason for status and Events (UpperCamelCase). */
export class ReconcileError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ReconcileError";
  }
}
