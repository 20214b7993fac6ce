package scenario

import (
	"slices"
	"strings"
)

// Drug is one entry of the drug catalogue: the canonical name used in actions
// and scenario files, the other names a trainee may type, and the classes
// that safety checks reason about.
type Drug struct {
	Name    string
	Aliases []string
	Classes []string
}

// Is reports whether the drug belongs to class.
func (d Drug) Is(class string) bool { return slices.Contains(d.Classes, class) }

// The catalogue. Classes are what cross-reactivity and contraindications are
// checked by, so a drug may sit in several (aspirin is a salicylate and an
// NSAID; morphine is an opioid and a phenanthrene).
var drugs = []Drug{
	// anaphylaxis, airway and breathing
	{"epinephrine", []string{"adrenaline", "adrenalin", "epi", "epipen"}, []string{"sympathomimetic"}},
	{"salbutamol", []string{"albuterol", "ventolin"}, []string{"beta2_agonist"}},
	{"salmeterol", nil, []string{"beta2_agonist"}},
	{"ipratropium", []string{"atrovent", "ipratropium bromide"}, []string{"anticholinergic"}},
	{"tiotropium", []string{"spiriva"}, []string{"anticholinergic"}},
	{"magnesium sulfate", []string{"magnesium", "magnesium sulphate", "mgso4", "mag sulph"}, []string{"electrolyte"}},
	{"prednisolone", []string{"pred"}, []string{"corticosteroid"}},
	{"prednisone", nil, []string{"corticosteroid"}},
	{"hydrocortisone", []string{"solu cortef"}, []string{"corticosteroid"}},
	{"methylprednisolone", []string{"solu medrol"}, []string{"corticosteroid"}},
	{"dexamethasone", []string{"dex"}, []string{"corticosteroid"}},
	{"fluticasone", nil, []string{"corticosteroid"}},
	{"chlorphenamine", []string{"chlorpheniramine", "piriton"}, []string{"antihistamine"}},
	{"diphenhydramine", []string{"benadryl"}, []string{"antihistamine"}},
	{"cetirizine", nil, []string{"antihistamine"}},
	// toxicology and metabolic
	{"naloxone", []string{"narcan"}, []string{"opioid_antagonist"}},
	{"flumazenil", nil, []string{"benzodiazepine_antagonist"}},
	{"glucose", []string{"dextrose", "d50", "d10", "glucogel", "glucose gel"}, []string{"carbohydrate"}},
	{"glucagon", []string{"glucagen"}, []string{"glucagon"}},
	{"insulin", []string{"actrapid", "novorapid", "insulin aspart", "insulin glargine", "lantus", "humalog"}, []string{"insulin"}},
	{"metformin", nil, []string{"biguanide"}},
	{"gliclazide", nil, []string{"sulfonylurea"}},
	{"thiamine", []string{"pabrinex"}, []string{"vitamin"}},
	// cardiac
	{"aspirin", []string{"asa", "acetylsalicylic acid"}, []string{"salicylate", "nsaid", "antiplatelet"}},
	{"clopidogrel", []string{"plavix"}, []string{"antiplatelet"}},
	{"ticagrelor", []string{"brilinta"}, []string{"antiplatelet"}},
	{"heparin", nil, []string{"anticoagulant"}},
	{"enoxaparin", []string{"clexane", "lovenox"}, []string{"anticoagulant"}},
	{"nitroglycerin", []string{"gtn", "glyceryl trinitrate", "nitroglycerine", "nitro", "gtn spray"}, []string{"nitrate"}},
	{"isosorbide mononitrate", []string{"ismn", "isosorbide"}, []string{"nitrate"}},
	{"isosorbide dinitrate", []string{"isdn"}, []string{"nitrate"}},
	{"sildenafil", []string{"viagra"}, []string{"pde5_inhibitor"}},
	{"tadalafil", []string{"cialis"}, []string{"pde5_inhibitor"}},
	{"vardenafil", []string{"levitra"}, []string{"pde5_inhibitor"}},
	{"amiodarone", nil, []string{"antiarrhythmic"}},
	{"adenosine", nil, []string{"antiarrhythmic"}},
	{"atropine", nil, []string{"anticholinergic"}},
	{"metoprolol", nil, []string{"beta_blocker"}},
	{"propranolol", nil, []string{"beta_blocker"}},
	{"atenolol", nil, []string{"beta_blocker"}},
	{"bisoprolol", nil, []string{"beta_blocker"}},
	{"labetalol", nil, []string{"beta_blocker"}},
	{"furosemide", []string{"frusemide", "lasix"}, []string{"diuretic"}},
	{"ramipril", nil, []string{"ace_inhibitor"}},
	{"lisinopril", nil, []string{"ace_inhibitor"}},
	{"atorvastatin", nil, []string{"statin"}},
	{"simvastatin", nil, []string{"statin"}},
	// analgesia and sedation
	{"paracetamol", []string{"acetaminophen", "tylenol"}, []string{"analgesic"}},
	{"ibuprofen", []string{"nurofen", "advil"}, []string{"nsaid"}},
	{"ketorolac", []string{"toradol"}, []string{"nsaid"}},
	{"naproxen", nil, []string{"nsaid"}},
	{"diclofenac", []string{"voltaren", "voltarol"}, []string{"nsaid"}},
	{"indomethacin", nil, []string{"nsaid"}},
	{"morphine", []string{"morphine sulfate", "morphine sulphate", "oramorph"}, []string{"opioid", "phenanthrene_opioid"}},
	{"codeine", []string{"codeine phosphate"}, []string{"opioid", "phenanthrene_opioid"}},
	{"hydromorphone", []string{"dilaudid"}, []string{"opioid", "phenanthrene_opioid"}},
	{"oxycodone", []string{"oxycontin", "oxynorm"}, []string{"opioid", "phenanthrene_opioid"}},
	{"hydrocodone", nil, []string{"opioid", "phenanthrene_opioid"}},
	{"diamorphine", []string{"heroin"}, []string{"opioid", "phenanthrene_opioid"}},
	{"buprenorphine", nil, []string{"opioid", "phenanthrene_opioid"}},
	{"fentanyl", nil, []string{"opioid", "phenylpiperidine_opioid"}},
	{"pethidine", []string{"meperidine", "demerol"}, []string{"opioid", "phenylpiperidine_opioid"}},
	{"methadone", nil, []string{"opioid"}},
	{"tramadol", nil, []string{"opioid"}},
	{"ketamine", nil, []string{"anaesthetic"}},
	{"methoxyflurane", []string{"penthrox"}, []string{"analgesic"}},
	{"nitrous oxide", []string{"entonox", "gas and air"}, []string{"analgesic"}},
	{"lorazepam", nil, []string{"benzodiazepine"}},
	{"midazolam", nil, []string{"benzodiazepine"}},
	{"diazepam", nil, []string{"benzodiazepine"}},
	{"ondansetron", []string{"zofran"}, []string{"antiemetic"}},
	{"metoclopramide", nil, []string{"antiemetic"}},
	{"tranexamic acid", []string{"txa"}, []string{"antifibrinolytic"}},
	// antibiotics
	{"penicillin", nil, []string{"antibiotic", "penicillin"}},
	{"benzylpenicillin", []string{"penicillin g", "benpen"}, []string{"antibiotic", "penicillin"}},
	{"phenoxymethylpenicillin", []string{"penicillin v"}, []string{"antibiotic", "penicillin"}},
	{"amoxicillin", []string{"amoxil", "amoxycillin"}, []string{"antibiotic", "penicillin"}},
	{"ampicillin", nil, []string{"antibiotic", "penicillin"}},
	{"co-amoxiclav", []string{"augmentin", "amoxicillin clavulanate"}, []string{"antibiotic", "penicillin"}},
	{"piperacillin-tazobactam", []string{"piperacillin", "tazocin", "pip taz", "piptaz", "zosyn"}, []string{"antibiotic", "penicillin"}},
	{"flucloxacillin", []string{"fluclox"}, []string{"antibiotic", "penicillin"}},
	{"ceftriaxone", []string{"rocephin"}, []string{"antibiotic", "cephalosporin"}},
	{"cefuroxime", nil, []string{"antibiotic", "cephalosporin"}},
	{"cefazolin", nil, []string{"antibiotic", "cephalosporin"}},
	{"cefalexin", []string{"cephalexin"}, []string{"antibiotic", "cephalosporin"}},
	{"meropenem", nil, []string{"antibiotic", "carbapenem"}},
	{"gentamicin", []string{"gent"}, []string{"antibiotic", "aminoglycoside"}},
	{"vancomycin", []string{"vanc"}, []string{"antibiotic", "glycopeptide"}},
	{"clarithromycin", nil, []string{"antibiotic", "macrolide"}},
	{"azithromycin", nil, []string{"antibiotic", "macrolide"}},
	{"doxycycline", nil, []string{"antibiotic", "tetracycline"}},
	{"ciprofloxacin", nil, []string{"antibiotic", "fluoroquinolone"}},
	{"levofloxacin", nil, []string{"antibiotic", "fluoroquinolone"}},
	{"metronidazole", nil, []string{"antibiotic", "nitroimidazole"}},
	{"clindamycin", nil, []string{"antibiotic", "lincosamide"}},
	{"trimethoprim", nil, []string{"antibiotic"}},
	{"nitrofurantoin", nil, []string{"antibiotic"}},
	// --- the adult curriculum's cases (issue 26): added by the cases engineer ---
	{"alteplase", []string{"rtpa", "rt pa", "tpa", "actilyse"}, []string{"thrombolytic"}},
	{"calcium gluconate", []string{"calcium gluconate 10%", "ca gluconate"}, []string{"calcium_salt"}},
	{"calcium chloride", []string{"cacl", "cacl2"}, []string{"calcium_salt"}},
	{"sodium bicarbonate", []string{"bicarbonate", "bicarb", "sodium bicarb", "nahco3"}, []string{"alkalinising_agent"}},
	{"acetylcysteine", []string{"n acetylcysteine", "nac", "parvolex", "acetadote"}, []string{"antidote"}},
	{"activated charcoal", []string{"charcoal"}, []string{"adsorbent"}},
	{"levetiracetam", []string{"keppra"}, []string{"antiepileptic"}},
	{"phenytoin", []string{"epanutin"}, []string{"antiepileptic"}},
	{"phytomenadione", []string{"vitamin k", "vitamin k1", "konakion"}, []string{"vitamin"}},
	{"prothrombin complex concentrate", []string{"pcc", "beriplex", "octaplex"}, []string{"anticoagulant_reversal"}},
	{"red cells", []string{"red blood cells", "packed red cells", "packed cells", "prbc", "prbcs", "o negative",
		"o negative blood", "o neg", "o neg blood", "emergency blood", "blood transfusion"}, []string{"blood_product"}},
	{"omeprazole", []string{"losec"}, []string{"ppi"}},
	{"apixaban", []string{"eliquis"}, []string{"anticoagulant", "doac"}},
	{"rivaroxaban", []string{"xarelto"}, []string{"anticoagulant", "doac"}},
	{"warfarin", nil, []string{"anticoagulant", "vitamin_k_antagonist"}},
	{"dalteparin", []string{"fragmin"}, []string{"anticoagulant"}},
	// --- the library's second step (issue 37): obstetrics, hypertension in pregnancy ---
	{"oxytocin", []string{"syntocinon", "pitocin"}, []string{"uterotonic"}},
	{"ergometrine", []string{"ergonovine", "syntometrine"}, []string{"uterotonic", "ergot_alkaloid"}},
	{"carboprost", []string{"hemabate"}, []string{"uterotonic", "prostaglandin"}},
	{"misoprostol", []string{"cytotec"}, []string{"uterotonic", "prostaglandin"}},
	{"hydralazine", []string{"apresoline"}, []string{"vasodilator"}},
	{"haloperidol", []string{"haldol"}, []string{"antipsychotic"}},
}

var (
	drugByName = map[string]int{}
	classes    = map[string]bool{}
)

func init() {
	for i, d := range drugs {
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			drugByName[NormalizeName(n)] = i
		}
		for _, c := range d.Classes {
			classes[c] = true
		}
	}
}

// NormalizeName folds case, hyphens and underscores so "Co-Amoxiclav" and
// "co amoxiclav" name the same drug.
func NormalizeName(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// LookupDrug finds a drug by its canonical name or any alias.
func LookupDrug(name string) (Drug, bool) {
	i, ok := drugByName[NormalizeName(name)]
	if !ok {
		return Drug{}, false
	}
	return drugs[i], true
}

// Drugs returns the catalogue in declaration order.
func Drugs() []Drug { return drugs }

// KnownClass reports whether any catalogued drug belongs to class.
func KnownClass(class string) bool { return classes[class] }
