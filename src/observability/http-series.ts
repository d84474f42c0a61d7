/**
 * The HTTP request series, `http_requests_total` (counter) and `http_request_duration_seconds`
 * (histogram), labelled by route, method and status. Requests are tallied in plain numbers, one
 * entry per label set found by a string key, and handed to the registry in prom-client's own
 * shapes only when it is scraped, so the exposition is what prom-client's `Counter` and
 * `Histogram` wrote. Why not those: each of their calls validates and hashes the label set, and
 * the two of them were most of the metrics' cost of a request.
 */
import type { Registry } from 'prom-client';

type Labels = { route: string; method: string; status: string };

interface Tally {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), by index of `bounds`. */
  perBucket: Float64Array;
}

/** One sample of prom-client's `get()` answer. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
  sharedLabels?: Labels;
  /** prom-client's buckets say they have none. */
  exemplar?: null;
}

interface MetricData {
  name: string;
  help: string;
  type: string;
  values: Sample[];
  aggregator: 'sum';
}

/** The part of prom-client's metric interface a registry reads. */
interface RegisteredMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  getForPromString(): Promise<MetricData>;
  get(): Promise<MetricData>;
  reset(): void;
}

export class HttpRequestSeries {
  private tallies = new Map<string, Tally>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    const counter = this.metric('http_requests_total', 'HTTP requests by route, method and status', 'counter', () =>
      [...this.tallies.values()].map((t) => ({ value: t.count, labels: t.labels })),
    );
    const histogram = this.metric('http_request_duration_seconds', 'HTTP request latency by route', 'histogram', () => this.histogramSamples());
    // prom-client's typings list its own classes only; a registry reads no more than `RegisteredMetric`
    registry.registerMetric(counter as unknown as Parameters<Registry['registerMetric']>[0]);
    registry.registerMetric(histogram as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** One finished request. */
  record(route: string, method: string, status: number, seconds: number): void {
    const key = `${status} ${method} ${route}`;
    let tally = this.tallies.get(key);
    if (tally === undefined) {
      tally = { labels: { route, method, status: String(status) }, count: 0, sum: 0, perBucket: new Float64Array(this.bounds.length) };
      this.tallies.set(key, tally);
    }
    tally.count += 1;
    tally.sum += seconds;
    // the first bound the value does not exceed; above them all, only +Inf (the count) has it
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= this.bounds[i]!) {
        tally.perBucket[i]! += 1;
        break;
      }
    }
  }

  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]): RegisteredMetric {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      // the text exposition reads this one; `get` gives each sample its label set whole, as prom-client does
      getForPromString: () => Promise.resolve({ name, help, type, values: values(), aggregator: 'sum' }),
      get: () =>
        Promise.resolve({
          name,
          help,
          type,
          aggregator: 'sum',
          values: values().map(({ sharedLabels, ...sample }) => ({ ...sample, labels: { ...sample.labels, ...sharedLabels } })),
        }),
      reset: () => {
        this.tallies = new Map();
      },
    };
  }

  /** Cumulative buckets, `+Inf`, sum and count per label set, as prom-client's histogram lists them. */
  private histogramSamples(): Sample[] {
    const bucket = 'http_request_duration_seconds_bucket';
    const samples: Sample[] = [];
    for (const { labels, count, sum, perBucket } of this.tallies.values()) {
      let below = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        below += perBucket[i]!;
        samples.push({ value: below, labels: { le: this.bounds[i]! }, metricName: bucket, sharedLabels: labels, exemplar: null });
      }
      samples.push({ value: count, labels: { le: '+Inf' }, metricName: bucket, sharedLabels: labels, exemplar: null });
      samples.push({ value: sum, labels: {}, metricName: 'http_request_duration_seconds_sum', sharedLabels: labels });
      samples.push({ value: count, labels: {}, metricName: 'http_request_duration_seconds_count', sharedLabels: labels });
    }
    return samples;
  }
}
