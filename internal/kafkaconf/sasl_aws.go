package kafkaconf

import (
	"context"
	"fmt"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
)

// awsMechanism signs in with AWS IAM (MSK), taking credentials from the
// standard AWS chain (environment, shared files with awsProfileName or
// AWS_PROFILE, SSO, container and instance roles) when a connection
// authenticates, so that expiring credentials are refreshed.
func awsMechanism(e jaasEntry) sasl.Mechanism {
	profile := e.Options["awsProfileName"]
	return aws.ManagedStreamingIAM(func(ctx context.Context) (aws.Auth, error) {
		var opts []func(*awsconfig.LoadOptions) error
		if profile != "" {
			opts = append(opts, awsconfig.WithSharedConfigProfile(profile))
		}
		cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return aws.Auth{}, fmt.Errorf("AWS credentials: %w", err)
		}
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			return aws.Auth{}, fmt.Errorf("AWS credentials (environment, shared config, or instance role): %w", err)
		}
		return aws.Auth{AccessKey: creds.AccessKeyID, SecretKey: creds.SecretAccessKey, SessionToken: creds.SessionToken, UserAgent: "kbench"}, nil
	})
}
