package seqd

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The server's own metrics, through the OpenTelemetry metric API, beside
// its cache's (package seqcache: seqshim.values.served, .reserved,
// .wasted, seqshim.cache.remaining, seqshim.refill.duration … of the
// server's blocks):
//
//	seqd.requests       requests answered, by client (seqd.client) and method (rpc.method)
//	seqd.values.served  values handed to clients, by client and sequence (seqshim.sequence)
//	seqd.store.errors   reservations that failed, by client and sequence
type serverMetrics struct {
	requests metric.Int64Counter
	values   metric.Int64Counter
	errors   metric.Int64Counter
}

const meterName = "github.com/seqshim/seqshim/seqd"

func (m *serverMetrics) init(mp metric.MeterProvider) error {
	meter := mp.Meter(meterName)
	var err error
	if m.requests, err = meter.Int64Counter("seqd.requests", metric.WithDescription("Requests answered."), metric.WithUnit("{request}")); err != nil {
		return err
	}
	if m.values, err = meter.Int64Counter("seqd.values.served", metric.WithDescription("Values handed to clients."), metric.WithUnit("{value}")); err != nil {
		return err
	}
	if m.errors, err = meter.Int64Counter("seqd.store.errors", metric.WithDescription("Reservations that failed."), metric.WithUnit("{request}")); err != nil {
		return err
	}
	return nil
}

func (m *serverMetrics) request(ctx context.Context, client, method string) {
	m.requests.Add(ctx, 1, metric.WithAttributes(attribute.String("seqd.client", client), attribute.String("rpc.method", method)))
}

func (m *serverMetrics) served(ctx context.Context, client, name string, n int64) {
	m.values.Add(ctx, n, metric.WithAttributes(attribute.String("seqd.client", client), attribute.String("seqshim.sequence", name)))
}

func (m *serverMetrics) storeError(ctx context.Context, client, name string) {
	m.errors.Add(ctx, 1, metric.WithAttributes(attribute.String("seqd.client", client), attribute.String("seqshim.sequence", name)))
}
