package types

import (
	"errors"
	"fmt"
	"time"
)

// DecodeDuration deserializes a duration value.
func DecodeDuration(b []byte) (DurationValue, error) { return decodeDuration(b) }

// ErrFloorStart and ErrFloorNegative are the refusals of Cassandra 4.1's
// floor functions (cql3.Duration.floorTimestamp and floorTime).
var (
	ErrFloorStart    = errors.New("The floor function starting time is greater than the provided time")
	ErrFloorNegative = errors.New("Negative durations are not supported by the floor function")
)

func (d DurationValue) negative() bool { return d.Nanos < 0 || d.Days < 0 || d.Months < 0 }

// FloorTimestamp rounds timeMillis down to the closest multiple of d
// counted from startMillis, as cql3.Duration.floorTimestamp does: without
// months, in plain milliseconds (a duration below a millisecond leaves the
// time as it is); with months, on a UTC calendar, first by whole months
// from the start's month, then stepping back one duration at a time while
// the days and milliseconds overshoot, never below the start.
func FloorTimestamp(timeMillis int64, d DurationValue, startMillis int64) (int64, error) {
	if startMillis > timeMillis {
		return 0, ErrFloorStart
	}
	if d.negative() {
		return 0, ErrFloorNegative
	}
	durationMillis := int64(d.Days)*86_400_000 + d.Nanos/nanosPerMilli
	if d.Months == 0 {
		if durationMillis == 0 {
			return timeMillis, nil
		}
		return timeMillis - (timeMillis-startMillis)%durationMillis, nil
	}
	ty, tm := utcYearMonth(timeMillis)
	sy, sm := utcYearMonth(startMillis)
	multiplier := int32(((ty-sy)*12 + (tm - sm)) / int64(d.Months))
	// The calendar of the Java code: each add of months clamps the day to
	// the month it lands in, from where the previous add left it.
	cal := addToMillis(startMillis, multiplier*d.Months, 0, 0)
	if d.Days == 0 && d.Nanos == 0 {
		return cal, nil
	}
	floor := cal + int64(multiplier)*durationMillis
	for floor > timeMillis {
		multiplier--
		cal = addToMillis(cal, -d.Months, 0, 0)
		floor = cal + int64(multiplier)*durationMillis
	}
	return max(startMillis, floor), nil
}

func utcYearMonth(millis int64) (int64, int64) {
	y, m, _ := time.UnixMilli(millis).UTC().Date()
	return int64(y), int64(m - 1)
}

// FloorTime rounds a time of day (nanoseconds since midnight) down to the
// closest multiple of d, as cql3.Duration.floorTime does; d must be below a
// day and have no months or days.
func FloorTime(timeNanos int64, d DurationValue) (int64, error) {
	if d.negative() {
		return 0, ErrFloorNegative
	}
	if d.Months != 0 || d.Days != 0 || d.Nanos > 24*3600*1_000_000_000 {
		return 0, errors.New("For time values, the floor can only be computed for durations smaller that a day")
	}
	if d.Nanos == 0 {
		return timeNanos, nil
	}
	return timeNanos - timeNanos%d.Nanos, nil
}

// FloorPrecisionError is the refusal of a floor duration finer than the
// value's type keeps (TimeFcts.FloorFunction.validateDuration): below a
// millisecond for a timestamp or time UUID, below a day for a date.
func FloorPrecisionError(t Type, d DurationValue) error {
	if t.Kind == Date {
		if d.Nanos != 0 {
			return fmt.Errorf("The floor on date values cannot be computed for the %s duration as precision is below 1 day", d)
		}
		return nil
	}
	if d.Nanos%nanosPerMilli != 0 {
		return fmt.Errorf("The floor cannot be computed for the %s duration as precision is below 1 millisecond", d)
	}
	return nil
}
