import { KafkaError } from '@kafkats/codec';
import { ExitCode } from './exit-codes.js';

/** Codes of {@link CliError}. */
export type CliErrorCode =
  | 'ERR_KAFKA_CLI_USAGE'
  | 'ERR_KAFKA_CLI_CONFIG_INVALID'
  | 'ERR_KAFKA_CLI_INPUT_INVALID'
  | 'ERR_KAFKA_CLI_NOT_FOUND'
  | 'ERR_KAFKA_CLI_AUTHORIZATION'
  | 'ERR_KAFKA_CLI_READ_ONLY'
  | 'ERR_KAFKA_CLI_BROKER';

const EXIT_BY_CODE: Readonly<Record<CliErrorCode, ExitCode>> = {
  ERR_KAFKA_CLI_USAGE: ExitCode.USAGE,
  ERR_KAFKA_CLI_CONFIG_INVALID: ExitCode.USAGE,
  ERR_KAFKA_CLI_INPUT_INVALID: ExitCode.USAGE,
  ERR_KAFKA_CLI_NOT_FOUND: ExitCode.NOT_FOUND,
  ERR_KAFKA_CLI_AUTHORIZATION: ExitCode.AUTHORIZATION,
  ERR_KAFKA_CLI_READ_ONLY: ExitCode.READ_ONLY,
  ERR_KAFKA_CLI_BROKER: ExitCode.BROKER,
};

/**
 * A failure the command line explains itself: what went wrong, where, and (`hint`) what to do
 * about it. Not retriable. `exitCode` follows from `code`.
 */
export class CliError extends KafkaError {
  readonly exitCode: ExitCode;
  /** One line on what to do next, or undefined. */
  readonly hint: string | undefined;

  constructor(
    code: CliErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.exitCode = EXIT_BY_CODE[code];
    this.hint = options.hint;
  }
}
