// Starts the loopback upstream that worker tests call, and hands its URL to them via inject('upstreamUrl').
import type { TestProject } from 'vitest/node';
import { startUpstream } from './upstream-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await startUpstream();
  project.provide('upstreamUrl', upstream.url);
  return () => upstream.close();
}
