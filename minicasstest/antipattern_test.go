package minicasstest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"
)

// session connects gocql to srv in keyspace ks at consistency c.
func session(t *testing.T, srv *Server, ks string, c gocql.Consistency) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = ks
	cluster.Consistency = c
	cluster.Timeout = 5 * time.Second
	cluster.WriteCoalesceWaitTime = 0
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(sess.Close)
	return sess
}

// blogSchema is the seed article's model: one table per query, partition
// keys of high cardinality, partitions bounded by a month bucket.
const blogSchema = `
CREATE KEYSPACE blog WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE blog.posts_by_user (user_id uuid, month text, created_at timestamp, post_id uuid, title text,
	PRIMARY KEY ((user_id, month), created_at, post_id)) WITH CLUSTERING ORDER BY (created_at DESC);
CREATE TABLE blog.posts_by_id (post_id uuid PRIMARY KEY, user_id uuid, title text);
CREATE TABLE blog.users_by_status (status text, user_id uuid, PRIMARY KEY (status, user_id));
`

// findings returns the checks that fired, by name.
func findings(f []Finding) []string {
	var out []string
	for _, x := range f {
		out = append(out, x.Check)
	}
	return out
}

// TestChecksSilentOnGoodModel: the article's model, written in logged
// batches that keep its two tables in step and read at LOCAL_QUORUM, sets
// off no check.
func TestChecksSilentOnGoodModel(t *testing.T) {
	srv := Start(t)
	require.NoError(t, srv.ExecScript(blogSchema))
	log := srv.StartQueryLog()
	sess := session(t, srv, "blog", gocql.LocalQuorum)
	for i := 0; i < 150; i++ {
		user, post := gocql.TimeUUID(), gocql.TimeUUID()
		b := sess.NewBatch(gocql.LoggedBatch)
		b.Query("INSERT INTO posts_by_user (user_id, month, created_at, post_id, title) VALUES (?, '2024-05', ?, ?, 'hello')", user, time.Now(), post)
		b.Query("INSERT INTO posts_by_id (post_id, user_id, title) VALUES (?, ?, 'hello')", post, user)
		require.NoError(t, sess.ExecuteBatch(b))
		var title string
		require.NoError(t, sess.Query("SELECT title FROM posts_by_user WHERE user_id = ? AND month = '2024-05' LIMIT 20", user).Scan(&title))
		require.NoError(t, sess.Query("SELECT title FROM posts_by_id WHERE post_id IN (?, ?)", post, gocql.TimeUUID()).Scan(&title))
	}
	require.Empty(t, srv.AntiPatterns(AllChecks()))
	log.CheckWrites(t, gocql.LocalQuorum)
	log.CheckReads(t, gocql.LocalQuorum)
	log.CheckNoAllowFiltering(t)
	log.CheckNoErrors(t)
	require.GreaterOrEqual(t, len(log.Client()), 450)
}

// TestChecksFire: each anti-pattern sets off its check, with the advice in
// the message, and no other.
func TestChecksFire(t *testing.T) {
	cases := []struct {
		name  string
		check string
		run   func(t *testing.T, srv *Server, sess *gocql.Session)
		want  string // in the message
	}{
		{"allow filtering", "allow-filtering", func(t *testing.T, srv *Server, sess *gocql.Session) {
			require.NoError(t, sess.Query("SELECT * FROM posts_by_id WHERE title = 'x' ALLOW FILTERING").Exec())
		}, "one table per query"},
		{"full scan", "full-scan", func(t *testing.T, srv *Server, sess *gocql.Session) {
			require.NoError(t, sess.Query("SELECT * FROM posts_by_id LIMIT 5").Exec())
		}, "scans every partition"},
		{"many keys in IN", "in-keys", func(t *testing.T, srv *Server, sess *gocql.Session) {
			ids := make([]gocql.UUID, 11)
			for i := range ids {
				ids[i] = gocql.TimeUUID()
			}
			require.NoError(t, sess.Query("SELECT * FROM posts_by_id WHERE post_id IN ?", ids).Exec())
		}, "one query per partition key"},
		{"multi-partition logged batch", "multi-partition-batch", func(t *testing.T, srv *Server, sess *gocql.Session) {
			b := sess.NewBatch(gocql.LoggedBatch)
			for i := 0; i < 3; i++ {
				b.Query("INSERT INTO posts_by_id (post_id, title) VALUES (?, 'bulk')", gocql.TimeUUID())
			}
			require.NoError(t, sess.ExecuteBatch(b))
		}, "not a cross-partition transaction"},
		{"large partition", "large-partition", func(t *testing.T, srv *Server, sess *gocql.Session) {
			user := gocql.TimeUUID()
			for i := 0; i < 30; i++ {
				require.NoError(t, sess.Query("INSERT INTO posts_by_user (user_id, month, created_at, post_id) VALUES (?, 'all', ?, ?)",
					user, time.Unix(int64(i), 0), gocql.TimeUUID()).Exec())
			}
		}, "time bucket"},
		{"hot partition", "hot-partition", func(t *testing.T, srv *Server, sess *gocql.Session) {
			for i := 0; i < 120; i++ {
				status := "active"
				if i%10 == 0 {
					status = "banned"
				}
				require.NoError(t, sess.Query("INSERT INTO users_by_status (status, user_id) VALUES (?, ?)", status, gocql.TimeUUID()).Exec())
			}
		}, "high-cardinality"},
		{"read at ONE after write at ONE", "read-one-after-write-one", func(t *testing.T, srv *Server, sess *gocql.Session) {
			id := gocql.TimeUUID()
			require.NoError(t, sess.Query("INSERT INTO posts_by_id (post_id, title) VALUES (?, 'x')", id).Consistency(gocql.One).Exec())
			var title string
			require.NoError(t, sess.Query("SELECT title FROM posts_by_id WHERE post_id = ?", id).Consistency(gocql.One).Scan(&title))
		}, "R + W > RF"},
	}
	checks := AllChecks()
	checks.MaxPartitionRows = 20
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := Start(t)
			require.NoError(t, srv.ExecScript(blogSchema))
			srv.StartQueryLog()
			sess := session(t, srv, "blog", gocql.LocalQuorum)
			tc.run(t, srv, sess)
			found := srv.AntiPatterns(checks)
			want := []string{tc.check}
			switch tc.check {
			case "allow-filtering":
				want = append(want, "full-scan") // ALLOW FILTERING without a key scans too
			case "hot-partition":
				want = append(want, "large-partition") // 108 rows, past the test's 20
			}
			require.Equal(t, want, findings(found), "%v", found)
			require.Contains(t, found[0].Message, tc.want)
			require.True(t, strings.Contains(found[0].String(), tc.check))
		})
	}
}

// TestEnableChecksFailsTheTest: EnableChecks reports at the end of the
// test, as an error or, with Warn, in the log.
func TestEnableChecksFailsTheTest(t *testing.T) {
	for _, warn := range []bool{false, true} {
		rec := &recorder{TB: t}
		srv := Start(t)
		require.NoError(t, srv.ExecScript(blogSchema))
		c := Checks{AllowFiltering: true, Warn: warn}
		srv.EnableChecks(rec, c)
		sess := session(t, srv, "blog", gocql.Quorum)
		require.NoError(t, sess.Query("SELECT * FROM posts_by_id WHERE title = 'x' ALLOW FILTERING").Exec())
		rec.cleanup()
		if warn {
			require.Empty(t, rec.errors)
			require.Len(t, rec.logs, 1)
			require.Contains(t, rec.logs[0], "allow-filtering")
		} else {
			require.Len(t, rec.errors, 1)
			require.Contains(t, rec.errors[0], "ALLOW FILTERING")
		}
	}
}

// recorder is a testing.TB that records Errorf and Logf and runs its
// cleanups on demand.
type recorder struct {
	testing.TB
	errors, logs []string
	cleanups     []func()
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, sprintf(format, a...))
}
func (r *recorder) Logf(format string, a ...any) { r.logs = append(r.logs, sprintf(format, a...)) }
func (r *recorder) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
