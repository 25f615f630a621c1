// Code mode's Worker side: the Worker Loader that starts each sandbox, this Worker's CodeModeApi entrypoint (the
// sandbox's only binding) and the key's rate limiter, bound into the CodeModeHost that a code-mode request's scope
// carries (src/tools/scope.ts). Worker-only: the stdio server never imports it.
import { exports } from 'cloudflare:workers';
import { countRequest } from '../auth/rate-limit.ts';
import type { Caller } from '../auth/bearer.ts';
import type { Env } from '../config.ts';
import { log } from '../lib/log.ts';
import type { CodeModeHost } from '../tools/scope.ts';
import { apiCaller, type ChargeCall } from './api-call.ts';
import { executeCode } from './execute.ts';
import { executeResult } from './format.ts';
import type { CodeModeApiProps } from './runs.ts';

type ApiEntrypoint = (options: { props: CodeModeApiProps }) => Fetcher;

const hosts = new WeakMap<object, CodeModeHost>();

/** The host for this env, or undefined when the Worker has no LOADER binding (code mode then answers 501). */
export function codeModeHost(env: Env, declarations: string): CodeModeHost | undefined {
  const loader = env.LOADER;
  if (!loader) return undefined;
  let host = hosts.get(env);
  if (host?.declarations === declarations) return host;
  // ctx.exports of this Worker: the entry (src/index.ts) exports CodeModeApi.
  const apiEntrypoint = (exports as unknown as { CodeModeApi: ApiEntrypoint }).CodeModeApi;
  host = {
    declarations,
    async execute(program, scope) {
      const outcome = await executeCode(program, {
        loader,
        apiEntrypoint,
        call: apiCaller(scope, rateCharge(env, scope.caller)),
        limits: scope.config.code,
        log: (fields) => log('codemode_execute', { caller: scope.caller.id, ...fields }),
      });
      return executeResult(outcome, program);
    },
  };
  hosts.set(env, host);
  return host;
}

/**
 * Every api call counts as one request against the key's rate limit, on top of the HTTP request that carried the
 * execute: the limit bounds what a key makes the upstream do, and one execute may make up to CODE_MAX_CALLS calls.
 */
function rateCharge(env: Env, caller: Caller): ChargeCall {
  return async () => {
    if (!caller.rate) return undefined;
    const { key, rate } = caller.rate;
    const decision = await countRequest(env.KEY_RATE_LIMITER, key, rate);
    if (!decision || decision.ok) return undefined;
    return `Rate limit: this key allows ${decision.limit} requests per ${rate.period}, and each api call counts as one. Retry after ${decision.resetSeconds} s.`;
  };
}
