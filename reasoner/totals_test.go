package reasoner

import (
	"reflect"
	"testing"

	"github.com/grove-kg/grove/reasoner/trace"
)

// TestAddTotalsSumsEveryField: a fallback run's totals add up every
// counter of both runs, so a counter added to trace.Totals (the tokens of
// cached samples, say) is not silently dropped from merged traces.
func TestAddTotalsSumsEveryField(t *testing.T) {
	var a, b trace.Totals
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		va.Field(i).SetInt(int64(i + 1))
		vb.Field(i).SetInt(int64(100 * (i + 1)))
	}
	sum := reflect.ValueOf(addTotals(a, b))
	for i := range sum.NumField() {
		if got, want := sum.Field(i).Int(), int64(101*(i+1)); got != want {
			t.Errorf("field %s = %d, want %d", sum.Type().Field(i).Name, got, want)
		}
	}
}
