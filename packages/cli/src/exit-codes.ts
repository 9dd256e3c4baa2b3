/**
 * The process exit codes of `kafkats`, one per kind of failure a person can act on. Stable:
 * scripts branch on them (documented in the package README).
 */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /** Bad flags or arguments, an unreadable config file, bad input on stdin. */
  USAGE: 1,
  /** No broker could be reached (refused, unresolvable, TLS/TCP timeout). */
  CONNECTION: 2,
  /** SASL or TLS authentication failed (the broker's reason is printed). */
  AUTHENTICATION: 3,
  /** The topic, partition, group or metadata topic does not exist. */
  NOT_FOUND: 4,
  /** The principal lacks an ACL (the operation and resource are printed). */
  AUTHORIZATION: 5,
  /** `--read-only` refused a command that would change the cluster. */
  READ_ONLY: 6,
  /** The cluster answered, but not within `--timeout`. */
  TIMEOUT: 7,
  /** The broker refused the request for another reason (its error name is printed). */
  BROKER: 8,
  /** A bug in kafkats: `--debug` prints the stack. */
  INTERNAL: 9,
  /** Interrupted (Ctrl-C, SIGTERM) before the command finished. */
  INTERRUPTED: 130,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
