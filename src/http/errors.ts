/** Maps anything thrown on the way to an answer into a status and `{ err }`. Internals never leak. */
import { AppError, INTERNAL_MESSAGE } from '../errors';

export interface ErrorAnswer {
  readonly status: number;
  readonly message: string;
  /** True when the error is unexpected and worth logging. */
  readonly unexpected: boolean;
}

interface BodyParserError {
  readonly type: string;
  readonly limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string'
    && 'expose' in error;
}

export function toErrorAnswer(error: unknown, maxBodyBytes: number): ErrorAnswer {
  if (error instanceof AppError) return { status: error.status, message: error.message, unexpected: error.code === 'internal' };
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.too.large':
        return { status: 413, message: `request body is larger than the limit of ${maxBodyBytes} bytes`, unexpected: false };
      case 'entity.parse.failed':
        return { status: 400, message: 'request body is not valid JSON', unexpected: false };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { status: 400, message: 'request body encoding is not supported: send UTF-8 JSON', unexpected: false };
      case 'request.aborted':
      case 'request.size.invalid':
        return { status: 400, message: 'request body was incomplete', unexpected: false };
    }
  }
  return { status: 500, message: INTERNAL_MESSAGE, unexpected: true };
}
