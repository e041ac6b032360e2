package adminapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Delivery returns the delivery with id, with its attempts, oldest first;
// an unknown id is a 404 error.
func (s *Service) Delivery(ctx context.Context, id int64) (adminwire.Delivery, error) {
	d, err := s.store.GetDelivery(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return adminwire.Delivery{}, notFound("no delivery %d", id)
	}
	if err != nil {
		return adminwire.Delivery{}, err
	}
	return s.withAttempts(ctx, d)
}

// withAttempts returns d in its wire form with its attempts.
func (s *Service) withAttempts(ctx context.Context, d store.Delivery) (adminwire.Delivery, error) {
	attempts, err := s.store.DeliveryAttempts(ctx, d.ID)
	if err != nil {
		return adminwire.Delivery{}, fmt.Errorf("read attempts: %w", err)
	}
	return adminwire.DeliveryOf(d, attempts), nil
}
