package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// storeResult is the store-write figure of a steady-rate run.
type storeResult struct {
	Store            string // what the cache was over
	Rate             int    // values per second asked for
	Duration, Warm   time.Duration
	Values           int64 // values drawn in the whole run
	Writes           int64 // store writes in the whole run
	SteadyValues     int64 // after the warm-up
	SteadyWrites     int64
	Reads            int64 // store reads (dynamostore reads an item on first use)
	Errors           int64 // failed Next calls
	TotalPerMillion  float64
	SteadyPerMillion float64
	AvgBlock         int64 // mean size of the blocks reserved
}

// countingAPI counts the DynamoDB calls of a dynamostore.Store.
type countingAPI struct {
	dynamostore.API
	writes, reads atomic.Int64
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.writes.Add(1)
	return c.API.UpdateItem(ctx, in, optFns...)
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.reads.Add(1)
	return c.API.GetItem(ctx, in, optFns...)
}

// countingStore counts the reservations of a store without a wire to count
// on (memstore): one reservation is one write.
type countingStore struct {
	*memstore.Store
	writes atomic.Int64
}

func (c *countingStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	c.writes.Add(1)
	return c.Store.Reserve(ctx, name, n)
}

// storeWrites draws values from a seqcache.Cache with its default options at
// a steady rate for cfg.storeTime of real time and counts the store's
// writes, over the whole run and after a warm-up of a third of it. The
// store is dynamostore on dynalite when SEQSHIM_TEST_DYNAMODB is set,
// memstore otherwise.
func storeWrites(ctx context.Context, cfg config, logf func(string, ...any)) (storeResult, error) {
	res := storeResult{Rate: cfg.rate, Duration: cfg.storeTime, Warm: cfg.storeTime / 3}
	const seq = "bench_writes"
	spec := sequence.DefaultSpec()
	var (
		reserver sequence.Reserver
		writes   func() int64
		reads    = func() int64 { return 0 }
	)
	if cfg.dynamo != "" {
		client := testenv.DynamoDBClient(cfg.dynamo)
		b := make([]byte, 4)
		rand.Read(b)
		table := "seqshim-bench-" + hex.EncodeToString(b)
		if err := dynamostore.CreateTable(ctx, client, table); err != nil {
			return res, err
		}
		defer client.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: &table})
		api := &countingAPI{API: client}
		store := dynamostore.New(api, table)
		if err := store.Create(ctx, seq, spec, spec.Initial()); err != nil {
			return res, err
		}
		reserver, writes, reads = store, api.writes.Load, api.reads.Load
		res.Store = "dynamostore on dynalite (writes: UpdateItem calls)"
	} else {
		store := &countingStore{Store: memstore.New()}
		if err := store.Create(ctx, seq, spec, spec.Initial()); err != nil {
			return res, err
		}
		reserver, writes = store, store.writes.Load
		res.Store = "memstore (SEQSHIM_TEST_DYNAMODB unset; writes: reservations)"
	}
	c := seqcache.New(reserver) // production defaults
	defer c.Close()
	h := c.Handle(seq)

	logf("store writes: %d values/s for %v (%s)...", cfg.rate, cfg.storeTime, res.Store)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	var served, warmServed, warmWrites int64
	warmed := false
	for now := range tick.C {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		el := now.Sub(start)
		if el >= cfg.storeTime {
			break
		}
		if !warmed && el >= res.Warm {
			warmed, warmServed, warmWrites = true, served, writes()
		}
		// Catch up to the schedule: a late tick does not lower the rate.
		for target := int64(el.Seconds() * float64(cfg.rate)); served < target; served++ {
			if _, err := h.Next(ctx); err != nil {
				res.Errors++
			}
		}
	}
	res.Values, res.Writes, res.Reads = served, writes(), reads()
	res.SteadyValues, res.SteadyWrites = served-warmServed, res.Writes-warmWrites
	st := c.Stats(seq)
	if st.Reservations > 0 {
		res.AvgBlock = st.Reserved / st.Reservations
	}
	if res.Values == 0 || res.SteadyValues == 0 {
		return res, fmt.Errorf("store writes: no values drawn")
	}
	res.TotalPerMillion = float64(res.Writes) * 1e6 / float64(res.Values)
	res.SteadyPerMillion = float64(res.SteadyWrites) * 1e6 / float64(res.SteadyValues)
	return res, nil
}
