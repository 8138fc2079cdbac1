/**
 * Why SQL could not be generated. Every reason is the caller's input, never a bug, so a
 * route answers all of them with 400 and a Problem named by `member`.
 *
 * - UNSUPPORTED_FUNCTION: the function (or its time unit) has no faithful SQL in the dialect.
 * - UNSAFE_TEXT: a name or value holds a character that cannot be sent safely (NUL, a lone
 *   UTF-16 surrogate) or a name the dialect cannot hold (empty, too long).
 * - INVALID_NUMBER: NaN, an infinity, or text that is not a plain decimal number.
 * - UNKNOWN_NAME: no such field or custom metric in the source.
 * - CIRCULAR_REFERENCE: derived fields or custom metrics that expand into themselves.
 * - INVALID_EXPRESSION: a formula that does not parse or misplaces an aggregate; with the
 *   source's types, any member the expression checker refuses (SUM over text, ...).
 * - TOO_LARGE: expanding fields and metrics inline would give an unreasonably long query.
 * - INVALID_DEFINITION: a materialized view definition member with a wrong value or shape.
 * - DUPLICATE_COLUMN: two selected columns would get the same name.
 */
export type SqlErrorReason =
  | "UNSUPPORTED_FUNCTION"
  | "UNSAFE_TEXT"
  | "INVALID_NUMBER"
  | "UNKNOWN_NAME"
  | "CIRCULAR_REFERENCE"
  | "INVALID_EXPRESSION"
  | "TOO_LARGE"
  | "INVALID_DEFINITION"
  | "DUPLICATE_COLUMN";

export class SqlGenerationError extends Error {
  readonly reason: SqlErrorReason;
  /**
   * The input member at fault, e.g. `definition.metrics[0].formula`. Unset when the
   * error comes from a lower-level call (printing one expression) that knows no member.
   */
  readonly member: string | undefined;
  /** Set once `within` has named where the error happened. */
  private placed = false;

  constructor(reason: SqlErrorReason, message: string, member?: string) {
    super(message);
    this.name = "SqlGenerationError";
    this.reason = reason;
    this.member = member;
  }

  /** The same error attributed to `member`, unless a more precise member is already set. */
  at(member: string): SqlGenerationError {
    if (this.member !== undefined) return this;
    const attributed = new SqlGenerationError(this.reason, this.message, member);
    attributed.placed = this.placed;
    return attributed;
  }

  /**
   * The same error saying where it happened, e.g. "(in derived field 'margin')". Only the
   * innermost place is named: that is where the text to fix is.
   */
  within(place: string): SqlGenerationError {
    if (this.placed) return this;
    const placed = new SqlGenerationError(this.reason, `${this.message} (in ${place})`, this.member);
    placed.placed = true;
    return placed;
  }
}

/** Runs `work`, attributing any SqlGenerationError it throws to `member`. */
export function attributeTo<T>(member: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SqlGenerationError) throw error.at(member);
    throw error;
  }
}
