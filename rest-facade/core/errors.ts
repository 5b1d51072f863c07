import { codeEnvelope, errorPolicy } from '../http/envelopes.js';

/** Doc 01 and DECISIONS section 3: every code answers its own status (kernel/errors.ts). */
export const coreErrors = errorPolicy({}, codeEnvelope);
