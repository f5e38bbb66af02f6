// Command agent is the agent's side: ask before acting, wait for a human when the service asks
// for one, and print the Authority Decision Token that the executor will check.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	authority "github.com/authority-runtime/authority-runtime/sdks/go"
)

func main() {
	client, err := authority.NewClient(os.Getenv("AUTHORITY_URL"), os.Getenv("AUTHORITY_TENANT"), os.Getenv("AUTHORITY_API_KEY"), authority.Options{})
	if err != nil {
		log.Fatal(err)
	}
	target := os.Getenv("AUTHORITY_TARGET_SYSTEM")
	if target == "" {
		target = "acme/api"
	}
	ctx := context.Background()

	decision, err := client.SubmitIntent(ctx, authority.IntentRequest{
		Actor:          authority.Actor{ID: "release-bot", Type: "agent"},
		TargetSystem:   target,
		ProposedAction: "merge pull request #42",
		RiskContext:    authority.RiskContext{BaseRiskScore: 20},
		Args:           map[string]any{"operation": "merge_pr", "pullNumber": 42},
	})
	if err != nil {
		log.Fatal(err)
	}
	switch decision.Verdict {
	case authority.VerdictDeny:
		log.Fatalf("DENIED by %s", decision.Reason)
	case authority.VerdictEscalate:
		fmt.Fprintf(os.Stderr, "ESCALATED intent %s: waiting for a human\n", decision.IntentID)
		status, err := client.WaitForApproval(ctx, decision.IntentID, 10*time.Minute, time.Second)
		if err != nil {
			log.Fatal(err)
		}
		if status != "APPROVED_AFTER_REVIEW" {
			log.Fatalf("not approved: %s", status)
		}
		if decision, err = client.FetchToken(ctx, decision.IntentID); err != nil {
			log.Fatal(err)
		}
	}

	fmt.Println(decision.Token) // hand it to the executor together with the action
}
