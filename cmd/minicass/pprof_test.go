package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServePprofLoopbackOnly: the profiles are served on a loopback
// address and refused elsewhere.
func TestServePprofLoopbackOnly(t *testing.T) {
	_, _, err := servePprof("0.0.0.0:0")
	require.ErrorContains(t, err, "not a loopback address")
	_, _, err = servePprof("no-port")
	require.Error(t, err)

	addr, stop, err := servePprof("127.0.0.1:0")
	require.NoError(t, err)
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NotEmpty(t, body, "the command line of the test binary")
}
