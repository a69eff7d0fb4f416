import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NoopSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
} from '@opentelemetry/sdk-trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

const SERVICE_NAME = 'orders-service';

export const tracer = (): Tracer => trace.getTracer(SERVICE_NAME);

/** Whether spans are recorded (an exporter is configured); set as tracing starts. */
let recording = false;
const ids = new RandomIdGenerator();

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, ended when the answer has been sent. */
    serverSpan?: Span;
  }
}

/** OpenTelemetry for the service. */
@Injectable()
export class Tracing implements OnModuleInit, OnApplicationShutdown {
  private sdk?: NodeSDK;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit(): void {
    const endpoint = this.config.otlpEndpoint;
    recording = endpoint !== undefined;
    this.sdk = new NodeSDK({
      serviceName: SERVICE_NAME,
      // Spans are made at the two places that matter (requests, statements); nothing is patched.
      instrumentations: [],
      textMapPropagator: new W3CTraceContextPropagator(),
      sampler: endpoint ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOffSampler(),
      spanProcessors: endpoint
        ? [
            new BatchSpanProcessor({
              exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
            }),
          ]
        : // The SDK installs no tracer, and so makes no trace ids, without a processor.
          [new NoopSpanProcessor()],
      // Traces only: no metrics or logs pipelines from the environment.
      metricReaders: [],
      logRecordProcessors: [],
    });
    this.sdk.start();
  }

  async onApplicationShutdown(): Promise<void> {
    // Sends the spans still buffered, then frees the global API for an application started after this one.
    await this.sdk?.shutdown();
    recording = false;
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

/** The trace id of the active span, for the log lines of a request. */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active());
  const traceId = span?.spanContext().traceId;
  return traceId && trace.isSpanContextValid(span.spanContext()) ? traceId : undefined;
}

/** A server span per request, the parent of its statement spans. */
export function traceRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const parent: Context = propagation.extract(context.active(), request.headers);
    const span = recording ? startServerSpan(request, parent) : idsOnly(parent);
    request.serverSpan = span;
    context.with(trace.setSpan(parent, span), done);
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const span = request.serverSpan;
    if (span?.isRecording()) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}

function startServerSpan(request: FastifyRequest, parent: Context): Span {
  const route = request.routeOptions.url;
  return tracer().startSpan(
    route ? `${request.method} ${route}` : request.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        ...(route ? { 'http.route': route } : {}),
        'url.scheme': 'http',
      },
    },
    parent,
  );
}

/** A span that is not recorded, as the sampler would make one: the caller's trace id if valid, new span id. */
function idsOnly(parent: Context): Span {
  const caller = trace.getSpanContext(parent);
  return trace.wrapSpanContext({
    traceId: caller && trace.isSpanContextValid(caller) ? caller.traceId : ids.generateTraceId(),
    spanId: ids.generateSpanId(),
    traceFlags: TraceFlags.NONE,
  });
}
