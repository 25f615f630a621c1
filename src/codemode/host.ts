// Code mode's Worker side: the Worker Loader that starts each sandbox, this Worker's CodeModeApi entrypoint (the
// sandbox's only binding) and the key's rate limiter, bound into the CodeModeHost that a code-mode request's scope
// carries (src/tools/scope.ts). Worker-only: the stdio server never imports it.
import { exports } from 'cloudflare:workers';
import { countRequest } from '../auth/rate-limit.ts';
import { assetShards } from '../catalogue/asset-shards.ts';
import type { Env } from '../config.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import { callerSlotKey } from '../tools/call-slots.ts';
import type { CodeModeHost, RequestScope } from '../tools/scope.ts';
import type { UsageEvent } from '../usage/rows.ts';
import { apiCaller, type ChargeCall } from './api-call.ts';
import { executeCode } from './run-program.ts';
import { executeResult } from './execute-result.ts';
import { takeSlot } from './execute-slots.ts';
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
    ...(env.ASSETS ? { readAsset: assetShards(env.ASSETS) } : {}),
    async execute(program, scope) {
      // A slot before anything is compiled or loaded: one key cannot hold more sandboxes than its cap, nor all keys
      // together more than the isolate's, whatever a batch or a burst of requests asks for.
      const key = await callerSlotKey(scope);
      const slot = takeSlot(key, scope.config.code);
      if ('refused' in slot) {
        log('codemode_refused', { caller: scope.caller.id, limit: slot.limit });
        return errorResult(slot.refused);
      }
      // Api calls run inside the sandbox's RPC calls back into this Worker, and a usage flush scheduled there (a
      // timer) would die with that call and hold the request's waitUntil open. Their usage is gathered here and
      // handed to the request's meter once the execute is back in the request that made it.
      const metered: UsageEvent[] = [];
      const runScope: RequestScope = scope.meter ? { ...scope, meter: (e) => void metered.push({ at: Date.now(), ...e }) } : scope;
      try {
        const outcome = await executeCode(program, {
          loader,
          apiEntrypoint,
          call: apiCaller(runScope, rateCharge(env, runScope)),
          limits: scope.config.code,
          log: (fields) => log('codemode_execute', { caller: scope.caller.id, ...fields }),
        });
        return executeResult(outcome, program);
      } finally {
        slot.release();
        for (const e of metered) scope.meter?.(e);
      }
    },
  };
  hosts.set(env, host);
  return host;
}


/**
 * Every api call counts as one request against the key's rate limit, on top of the HTTP request that carried the
 * execute: the limit bounds what a key makes the upstream do, and one execute may make up to CODE_MAX_CALLS calls.
 */
function rateCharge(env: Env, scope: RequestScope): ChargeCall {
  const { caller } = scope;
  return async (tool) => {
    if (!caller.rate) return undefined;
    const { key, rate } = caller.rate;
    const decision = await countRequest(env.KEY_RATE_LIMITER, key, rate);
    if (!decision || decision.ok) return undefined;
    // Metered like the HTTP refusal of the same key (src/usage), with the tool it was for.
    scope.meter?.({ keyId: caller.id, tool, outcome: 'rate_limited' });
    return `Rate limit: this key allows ${decision.limit} requests per ${rate.period}, and each api call counts as one. Retry after ${decision.resetSeconds} s.`;
  };
}
