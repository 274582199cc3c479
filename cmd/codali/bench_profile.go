package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts a CPU profile into cpuFile and an execution trace
// into traceFile (each when not empty) and returns the function that
// stops them and closes the files.
func startProfiles(cpuFile, traceFile string) (stop func() error, err error) {
	var stops []func() error
	stopAll := func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	if cpuFile != "" {
		f, err := os.Create(cpuFile)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, errors.Join(fmt.Errorf("cpu profile: %w", err), f.Close())
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("trace: %w", err), stopAll())
		}
		if err := trace.Start(f); err != nil {
			return nil, errors.Join(fmt.Errorf("trace: %w", err), f.Close(), stopAll())
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	return stopAll, nil
}
