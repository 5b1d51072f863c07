import { DomainError, ERROR_STATUSES, ErrorCodes } from '../../kernel/errors.js';
import { coreErrors } from '../../rest-facade/core/errors.js';
import { impactErrors } from '../../rest-facade/impact/errors.js';
import { indicatorErrors } from '../../rest-facade/indicators/errors.js';
import { recordsErrors } from '../../rest-facade/records/errors.js';

/**
 * Issue 13, item 3: an error code missing from a facade's table used to become 500 INTERNAL_ERROR
 * without a word. Every code now has its own status (ERROR_STATUSES); a facade only overrides where
 * its contract says otherwise. Every facade answers every code in its envelope, never as a 500 that
 * hides the code.
 */
const RECORDS_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'internal_error',
  'unavailable',
];
const error = (code: (typeof ErrorCodes)[number]) => new DomainError(code, `message of ${code}`, { some: 'detail' });

describe.each(ErrorCodes.map((code) => [code]))('%s', (code) => {
  test('core and indicators: its own status, the code, message and details', () => {
    for (const policy of [coreErrors, indicatorErrors]) {
      const answer = policy(error(code));
      expect(answer.status).toBe(ERROR_STATUSES[code]);
      const body = answer.body as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message']);
      // The indicator service names malformed bodies its own way (INVALID_REQUEST_BODY).
      if (!(policy === indicatorErrors && code === 'BAD_REQUEST')) expect(body.code).toBe(code);
    }
  });

  test('records: a status of the contract with its lower-case code', () => {
    const answer = recordsErrors(error(code));
    const body = answer.body as Record<string, unknown>;
    expect(RECORDS_CODES).toContain(body.code);
    expect(answer.status === 500).toBe(body.code === 'internal_error');
    expect(answer.status < 500).toBe(ERROR_STATUSES[code] < 500);
  });

  test('impact: its own status in FastAPI’s detail envelope', () => {
    const answer = impactErrors(error(code));
    expect(answer.status).toBe(ERROR_STATUSES[code]);
    expect(Object.keys(answer.body as object)).toEqual(['detail']);
  });
});

test('the records store failing is unavailable (503) on the records facade, 502 STORE_ERROR on the core', () => {
  expect(recordsErrors(error('STORE_ERROR'))).toMatchObject({ status: 503, body: { code: 'unavailable' } });
  expect(coreErrors(error('STORE_ERROR'))).toMatchObject({ status: 502, body: { code: 'STORE_ERROR' } });
});
