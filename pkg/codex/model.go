package codex

// CognitiveState is a decoded payload (decoder spec §7). Every scalar the
// payload did not carry is Unknown and every list it did not carry is a nil
// List (JSON "UNKNOWN"); nothing is defaulted to zero.
type CognitiveState struct {
	// Version is the header's v attribute, Unknown when absent.
	Version Value `json:"version"`
	// VersionSupported is false when Version is not 1.0, 1.1 or 1.2.
	VersionSupported bool `json:"versionSupported"`
	// ProjectContext comes from DATA and CONTEXT.
	ProjectContext ProjectContext `json:"projectContext"`
	// TemporalContext comes from TIMELINE.
	TemporalContext TemporalContext `json:"temporalContext"`
	// CognitiveSignals comes from INSIGHTS.
	CognitiveSignals CognitiveSignals `json:"cognitiveSignals"`
	// DecisionContext comes from DECISIONS.
	DecisionContext DecisionContext `json:"decisionContext"`
	// DeveloperProfile comes from CONTEXT.
	DeveloperProfile DeveloperProfile `json:"developerProfile"`
	// OptionalMetadata comes from OPTIONAL and unknown top-level tags.
	OptionalMetadata OptionalMetadata `json:"optionalMetadata"`
	// Unavailable names the required blocks that were missing (partial mode)
	// or empty: their sections are entirely UNKNOWN ("context unavailable").
	Unavailable []string `json:"unavailable,omitempty"`
	// UnknownTokens keeps, per block name, the tokens the decoder did not
	// recognise, verbatim and in payload order.
	UnknownTokens map[string][]string `json:"unknownTokens,omitempty"`
}

// ProjectContext describes the project and its load (DATA, CONTEXT).
type ProjectContext struct {
	// ProjectHash is the proj#… identifier.
	ProjectHash Value `json:"projectHash"`
	// ProjectType is CONTEXT type= (an addition to spec §7).
	ProjectType Value `json:"projectType"`
	// Mode is strict, normal, flexible or exploratory.
	Mode Value `json:"mode"`
	// Phase is the pipeline phase.
	Phase Value `json:"phase"`
	// TaskLoad is the tasks= token.
	TaskLoad TaskLoad `json:"taskLoad"`
	// KPIs are the kpi:<name>=<value> tokens in payload order (an addition
	// to spec §7).
	KPIs List[KPI] `json:"kpis"`
	// CogHealth is cog.health in [0,1] (an addition to spec §7).
	CogHealth Value `json:"cogHealth"`
	// Maturity is the maturity token.
	Maturity Value `json:"maturity"`
	// Constraints is CONTEXT constraints=.
	Constraints List[string] `json:"constraints"`
	// SuccessCriteria is CONTEXT success=.
	SuccessCriteria List[string] `json:"successCriteria"`
	// ExtraConstraints holds CONTEXT key=value tokens with unrecognised keys.
	ExtraConstraints map[string]string `json:"extraConstraints,omitempty"`
}

// TaskLoad is tasks=<active> or tasks=<active>.active/<total>.total.
type TaskLoad struct {
	// Active is the number of active tasks.
	Active Value `json:"active"`
	// Total is the total number of tasks.
	Total Value `json:"total"`
}

// KPI is one kpi:<name>=<value> token.
type KPI struct {
	// Name is the KPI name.
	Name string `json:"name"`
	// Value is its value as written.
	Value Value `json:"value"`
}

// TemporalContext is the TIMELINE block.
type TemporalContext struct {
	// Cycles is the cycle count.
	Cycles Value `json:"cycles"`
	// Actions is actions= split on '+' and ','.
	Actions List[string] `json:"actions"`
	// Bursts is bursts= split on ',' and '+'.
	Bursts List[string] `json:"bursts"`
	// Droughts is droughts= split on ',' and '+'.
	Droughts List[string] `json:"droughts"`
	// Hotspots are hashed identifiers; they are never reversed.
	Hotspots List[string] `json:"hotspots"`
	// Anomalies is anomalies= split on ',' and '+'.
	Anomalies List[string] `json:"anomalies"`
}

// InsightKind is the kind prefix of an INSIGHTS token.
type InsightKind string

const (
	// KindPattern is a pattern:… insight.
	KindPattern InsightKind = "pattern"
	// KindTrend is a trend:… insight.
	KindTrend InsightKind = "trend"
	// KindForecast is a forecast:… insight.
	KindForecast InsightKind = "forecast"
	// KindCorrelation is a correlation:… insight.
	KindCorrelation InsightKind = "correlation"
)

// Insight is one kind:label[(args)] token.
type Insight struct {
	// Kind is pattern, trend, forecast or correlation.
	Kind InsightKind `json:"kind"`
	// Label names the insight.
	Label string `json:"label"`
	// Weight is weight= in [0,1].
	Weight Value `json:"weight"`
	// Conf is conf= in [0,1].
	Conf Value `json:"conf"`
	// Signal is a bare signed value in [-1,1], e.g. +0.41.
	Signal Value `json:"signal"`
}

// CognitiveSignals is the INSIGHTS block. From v1.1 on the four lists are
// known (possibly empty) whenever the block holds tokens; for v1.0 payloads
// they are UNKNOWN and the tokens are in FreeForm.
type CognitiveSignals struct {
	// Patterns are pattern: insights in payload order.
	Patterns List[Insight] `json:"patterns"`
	// Trends are trend: insights in payload order.
	Trends List[Insight] `json:"trends"`
	// Forecasts are forecast: insights in payload order.
	Forecasts List[Insight] `json:"forecasts"`
	// Correlations are correlation: insights in payload order.
	Correlations List[Insight] `json:"correlations"`
	// FreeForm holds the verbatim tokens of a v1.0 INSIGHTS block.
	FreeForm List[string] `json:"freeForm,omitempty"`
}

// DecisionContext is the DECISIONS block.
type DecisionContext struct {
	// ADRRefs are adr#… identifiers.
	ADRRefs List[string] `json:"adrRefs"`
	// DriftSignals is drift=.
	DriftSignals List[string] `json:"driftSignals"`
	// Anomalies is anomaly=.
	Anomalies List[string] `json:"anomalies"`
	// Integrity is GREEN, AMBER, RED or UNKNOWN.
	Integrity Integrity `json:"integrity"`
	// Adjustments is adjust=/adjustment=, in encoder priority order.
	Adjustments List[string] `json:"adjustments"`
	// FreeForm holds the verbatim tokens of a v1.0 DECISIONS block.
	FreeForm List[string] `json:"freeForm,omitempty"`
}

// DeveloperProfile comes from CONTEXT.
type DeveloperProfile struct {
	// DevDNA is devDNA=.
	DevDNA Value `json:"devDNA"`
	// ReasoningStyle is reasoning=.
	ReasoningStyle Value `json:"reasoningStyle"`
	// RiskProfile is risk=.
	RiskProfile Value `json:"riskProfile"`
	// StackDescriptors is stack=hash(a,b,c) or stack=a,b as a list.
	StackDescriptors List[string] `json:"stackDescriptors"`
}

// OptionalMetadata is the OPTIONAL block plus unknown top-level tags.
type OptionalMetadata struct {
	// Vendor is vendor=.
	Vendor Value `json:"vendor"`
	// Encoder is encoder=.
	Encoder Value `json:"encoder"`
	// Session is session=<hash>.
	Session Value `json:"session"`
	// Checksum is checksum=<hash>, or the bare symbol checksum#….
	Checksum Value `json:"checksum"`
	// Policy is policy=.
	Policy Value `json:"policy"`
	// Extensions keeps ext.* and unknown OPTIONAL tokens verbatim: the text
	// before the first '=' is the key, the text after it the value ("" when
	// the token has no '=').
	Extensions map[string]string `json:"extensions"`
	// UnknownBlocks keeps unknown top-level tags (e.g. <FUTURE>) in payload
	// order with their normalised content.
	UnknownBlocks []TaggedBlock `json:"unknownBlocks,omitempty"`
}

// TaggedBlock is an unknown top-level tag and its content.
type TaggedBlock struct {
	// Tag is the element name.
	Tag string `json:"tag"`
	// Content is the element's normalised, trimmed content.
	Content string `json:"content"`
}

// newCognitiveState returns a state with every field Unknown.
func newCognitiveState() *CognitiveState {
	u := Unknown
	return &CognitiveState{
		Version: u,
		ProjectContext: ProjectContext{
			ProjectHash: u, ProjectType: u, Mode: u, Phase: u,
			TaskLoad: TaskLoad{Active: u, Total: u}, CogHealth: u, Maturity: u,
		},
		TemporalContext:  TemporalContext{Cycles: u},
		DecisionContext:  DecisionContext{Integrity: IntegrityUnknown},
		DeveloperProfile: DeveloperProfile{DevDNA: u, ReasoningStyle: u, RiskProfile: u},
		OptionalMetadata: OptionalMetadata{
			Vendor: u, Encoder: u, Session: u, Checksum: u, Policy: u,
			Extensions: map[string]string{},
		},
	}
}
