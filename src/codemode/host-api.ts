// The sandbox's only capability: a loopback entrypoint of this Worker, handed to each Dynamic Worker as its
// env.API binding with props { run } (see runs.ts for why the props carry nothing else).
// Must be exported by the Worker entry (src/index.ts) so ctx.exports.CodeModeApi exists.
import { WorkerEntrypoint } from 'cloudflare:workers';
import type { ApiReply } from './api-reply.ts';
import { callInRun, type CodeModeApiProps } from './runs.ts';

export class CodeModeApi extends WorkerEntrypoint<unknown, CodeModeApiProps> {
  async call(name: unknown, args: unknown): Promise<ApiReply> {
    return callInRun(this.ctx.props?.run, name, args);
  }
}
