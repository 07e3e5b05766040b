/** Parse errors of a connection string: one ValidationError on `configuration.conn_string`. */
import { ValidationError } from '../../shared/errors';
import { CONN_STRING_PATH } from '../types';

/** The message names the key at fault and never carries a secret value. */
export function connStringError(message: string): ValidationError {
  return ValidationError.field(CONN_STRING_PATH, message);
}
