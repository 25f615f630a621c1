// fetch that sends a request again when the keep-alive socket it was given had been closed by the server. A client
// that compiles a large tool list (the v1 SDK client's Ajv) blocks the event loop for longer than wrangler dev keeps an
// idle socket open, and its next request then meets a socket that closed meanwhile (undici "other side closed",
// UND_ERR_SOCKET); nothing reached the server, so sending it again is safe.
export const freshSocketFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (err) {
    if ((err as { cause?: { code?: unknown } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    return fetch(input, init);
  }
};
