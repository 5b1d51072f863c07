import { DomainError } from '../../../kernel/errors.js';
import { MODEL_FAMILY } from '../domain/compute-request.js';
import type { CoreValidationPort, Credentials } from '../domain/indicator-service.js';

export interface CoreValidationClientOptions {
  /** Without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  coreBaseUrl: string;
  timeoutMs: number;
}

/**
 * The core's `:validate` operation through doc 01's HTTP contract only, so any conforming core
 * works, not just ours. Node's global fetch (undici) keeps connections alive between calls.
 * Error messages never carry the upstream body: it may hold anything, including echoed tokens.
 */
export class CoreValidationClient implements CoreValidationPort {
  constructor(private readonly options: CoreValidationClientOptions) {}

  validationUrl(version: string): string {
    return `${this.options.coreBaseUrl}/models/${MODEL_FAMILY}/versions/${encodeURIComponent(version)}:validate`;
  }

  async validate(version: string, payload: unknown, credentials: Credentials): Promise<unknown> {
    const url = this.validationUrl(version);
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const response = await this.post(url, payload, credentials, signal);
    if (response.status !== 200) {
      await response.body?.cancel();
      throw statusError(response.status, url);
    }
    return this.readJson(response, url, signal);
  }

  private async post(url: string, payload: unknown, credentials: Credentials, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { ...credentials, 'content-type': 'application/json', accept: 'application/json' };
    try {
      return await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ payload }),
        signal,
      });
    } catch {
      throw this.transportError(signal, url);
    }
  }

  /** The timeout signal also covers reading the body, so a core that stalls mid-body still times out. */
  private async readJson(response: Response, url: string, signal: AbortSignal): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw this.transportError(signal, url);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw upstreamError('the core validation answered with invalid JSON', url);
    }
  }

  /** The signal, not the error's class, tells a timeout apart: errors may come from another realm. */
  private transportError(signal: AbortSignal, url: string): DomainError {
    return upstreamError(signal.aborted ? `the core validation did not answer within ${this.options.timeoutMs / 1000} s` : 'the core validation could not be reached', url);
  }
}

/**
 * 401 is the core rejecting the caller's credentials, which doc 02 says appears as a 401 here; 404
 * is an unknown model version; any other status is the upstream failing (DECISIONS section 5:
 * "core 5xx/other status"), 403 included: the caller was authenticated, so the delegation itself,
 * not the caller's credentials, did not work.
 */
function statusError(status: number, url: string): DomainError {
  if (status === 401) {
    return new DomainError('CORE_UNAUTHORIZED', 'the core service rejected the delegated validation', {
      validation_url: url,
      upstream_status: status,
    });
  }
  if (status === 404) {
    return new DomainError('MODEL_VERSION_NOT_FOUND', 'the core service does not know this model version', {
      validation_url: url,
    });
  }
  return new DomainError('CORE_VALIDATION_ERROR', `the core validation answered with status ${status}`, {
    validation_url: url,
    upstream_status: status,
  });
}

function upstreamError(message: string, url: string): DomainError {
  return new DomainError('CORE_VALIDATION_ERROR', message, { validation_url: url });
}
