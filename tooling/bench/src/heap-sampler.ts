// The peak heap of a run: `heapUsed` sampled every 20 ms on an unref'd timer (W3, W5).

/** A running sampler; `stop()` ends it and returns the highest `heapUsed` seen, the current one included. */
export interface HeapSampler {
  stop(): number;
}

/** Start sampling `process.memoryUsage().heapUsed` every 20 ms (the timer does not keep the process alive). */
export function heapSampler(): HeapSampler {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}
