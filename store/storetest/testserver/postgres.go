package testserver

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq" // the driver the URL is for
)

// Postgres is a running private PostgreSQL instance.
type Postgres struct {
	// URL connects as the superuser "grove" to database "grove".
	URL string
	Dir string
}

// StartPostgres runs initdb and pg_ctl (Debian package postgresql) in a
// temp dir and starts PostgreSQL on a loopback port. As root, the server
// runs as the "postgres" user, which PostgreSQL requires.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	initdb := pgBin(t, "initdb")
	pgctl := pgBin(t, "pg_ctl")
	dir, err := os.MkdirTemp("", "grove-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user (from `apt-get install -y postgresql`): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
	}
	data := filepath.Join(dir, "data")
	run(initdb, "-D", data, "-U", "grove", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	port := FreePort(t)
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=512MB -c work_mem=64MB -c maintenance_work_mem=256MB -c max_wal_size=4GB", port, dir)
	run(pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start")
	t.Cleanup(func() {
		cmd := exec.Command(pgctl, "-D", data, "-m", "immediate", "-w", "stop")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		_ = cmd.Run()
	})
	admin := fmt.Sprintf("postgres://grove@127.0.0.1:%d/postgres?sslmode=disable", port)
	db, err := sql.Open("postgres", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err = db.Exec(`CREATE DATABASE grove`); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return &Postgres{URL: fmt.Sprintf("postgres://grove@127.0.0.1:%d/grove?sslmode=disable", port), Dir: dir}
}

// pgBin finds a PostgreSQL program on PATH or in Debian's versioned
// directory.
func pgBin(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, v := range []string{"17", "16", "15", "14", "13"} {
		p := filepath.Join("/usr/lib/postgresql", v, "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("%s not found: install PostgreSQL with `apt-get install -y postgresql`", name)
	return ""
}
