// etcd, built from go.etcd.io/etcd/server/v3 as a Go module (the same entry point as upstream's etcd main).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
