// The rate sampler: a sliding window of served counts per handle, the
// refill threshold and the size of the blocks asked of the store.

package seqcache

import "time"

// sample records every handle's served count each Sample period, updates
// its rate and threshold, and starts refills the new threshold calls for.
func (c *Cache) sample() {
	defer c.wg.Done()
	t := time.NewTicker(c.opts.Sample)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			for _, h := range *c.handles.Load() {
				h.tick(now)
			}
		}
	}
}

// sample is the served count at one instant.
type sample struct {
	at     time.Time
	served int64
}

// rateLocked is the consumption rate, values per second, over the window up
// to now.
func (h *Handle) rateLocked(now time.Time) float64 {
	if h.nsamples == 0 {
		return 0
	}
	oldest := h.samples[0]
	if h.nsamples == len(h.samples) {
		oldest = h.samples[h.ringNext]
	}
	// Over at least one Sample period: a burst drawn in a few microseconds
	// says nothing of the rate, and dividing by its own duration would size
	// the next blocks for millions of values a second.
	elapsed := max(now.Sub(oldest.at), h.c.opts.Sample).Seconds()
	return max(float64(h.servedLocked()-oldest.served), 0) / elapsed // Untake may step back
}

// addSampleLocked records s in the ring, overwriting the oldest sample once
// the ring is full.
func (h *Handle) addSampleLocked(s sample) {
	h.samples[h.ringNext] = s
	h.ringNext = (h.ringNext + 1) % len(h.samples)
	h.nsamples = min(h.nsamples+1, len(h.samples))
}

// setThreshLocked sets the refill threshold from the rate: max(rate ×
// buffer, MinThreshold), with the buffer in force (limitsLocked).
func (h *Handle) setThreshLocked() {
	buffer, _, _ := h.limitsLocked()
	h.thresh = max(int64(h.rate*buffer.Seconds()), h.c.opts.MinThreshold)
}

// tick records a rate sample and adjusts the threshold.
func (h *Handle) tick(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.first.IsZero() {
		return
	}
	h.addSampleLocked(sample{at: now, served: h.servedLocked()})
	h.relaxLocked(now)
	h.rate = h.rateLocked(now)
	h.setThreshLocked()
	b := h.active.Load()
	h.setTriggerLocked(b)
	if h.needLocked() && h.lastErr == nil {
		h.startRefillLocked()
	}
}
