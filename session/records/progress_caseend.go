package records

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/scenario"
)

// caseEnds writes, shift by shift, each patient's diagnosis and disposition and the reflective
// answers with the key points they named. The shift being played keeps its verdicts and its
// scenarios to itself, as its row in the table does.
func (p Progress) caseEnds(b *strings.Builder) {
	b.WriteString("\nDiagnosis, disposition and reflection\n")
	for i, s := range p.Shifts {
		for _, pr := range s.Patients {
			if s.Session == p.Open {
				fmt.Fprintf(b, "%3d  %s: diagnosis %s · disposition %s (being played)\n", i+1, pr.PatientID, orNoneGiven(quoted(pr.Diagnosis)), orNoneGiven(pr.Disposition))
				continue
			}
			fmt.Fprintf(b, "%3d  %s (%s): diagnosis %s · disposition %s\n", i+1, pr.PatientID, pr.Scenario, pr.diagnosisCell(), pr.dispositionCell())
			for _, r := range pr.Reflections {
				fmt.Fprintf(b, "       Q: %s\n       A: %s\n       %s\n", r.Question, r.Answer, keyPointsCell(r))
			}
		}
	}
}

// diagnosisCell is the last working diagnosis and its verdict.
func (p PatientResult) diagnosisCell() string {
	switch {
	case p.Diagnosis == "":
		return "none given"
	case p.DiagnosisVerdict == "":
		return fmt.Sprintf("%q (the case has no key)", p.Diagnosis)
	}
	return fmt.Sprintf("%q (%s)", p.Diagnosis, p.DiagnosisVerdict)
}

// dispositionCell is where the patient went and whether that was right.
func (p PatientResult) dispositionCell() string {
	switch {
	case p.Disposition == "":
		return "none given"
	case p.DispositionRight:
		return p.Disposition + " (right)"
	}
	return p.Disposition + " (not where the case called for)"
}

// keyPointsCell says how many key points an answer named, and which it missed.
func keyPointsCell(r aar.ReflectionOutcome) string {
	s := fmt.Sprintf("named %d of %d key points", len(r.Named), len(r.Named)+len(r.Missed))
	if len(r.Missed) > 0 {
		s += "; missed: " + strings.Join(r.Missed, ", ")
	}
	return s
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

func orNoneGiven(s string) string {
	if s == "" {
		return "none given"
	}
	return s
}

// caseEndsMarkdown is the class report's table of a trainee's diagnoses, dispositions and
// reflective answers, one row per patient.
func caseEndsMarkdown(b *strings.Builder, shifts []ShiftResult) {
	b.WriteString("\n### Diagnosis, disposition and reflection\n\n")
	b.WriteString("| # | patient | scenario | diagnosis | disposition | reflective answers |\n| ---: | --- | --- | --- | --- | --- |\n")
	for i, s := range shifts {
		for _, p := range s.Patients {
			var answers []string
			for _, r := range p.Reflections {
				answers = append(answers, fmt.Sprintf("**%s** %s (%s)", r.Question, r.Answer, keyPointsCell(r)))
			}
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", i+1, mdCell(p.PatientID), mdCell(p.Scenario), mdCell(p.diagnosisCell()),
				mdCell(p.dispositionCell()), mdCell(orNoneGiven(strings.Join(answers, "<br>"))))
		}
	}
}

// DiagnosesRight counts the patients whose last working diagnosis was the case's.
func (r ShiftResult) DiagnosesRight() int {
	n := 0
	for _, p := range r.Patients {
		if p.DiagnosisVerdict == scenario.VerdictAccepted {
			n++
		}
	}
	return n
}

// DispositionsRight counts the patients sent where the case called for.
func (r ShiftResult) DispositionsRight() int {
	n := 0
	for _, p := range r.Patients {
		if p.DispositionRight {
			n++
		}
	}
	return n
}
